/*
 * classad.h: the C ABI of classad-rs (ClassAds, matching, the negotiator).
 * Made by cbindgen from capi/src; do not edit: change the Rust and run
 *   CLASSAD_CAPI_BLESS=1 cargo test -p classad-capi --test header
 * The guide is docs/c-api.md of the repository.
 */

#ifndef CLASSAD_CAPI_H
#define CLASSAD_CAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One ClassAd: made by classad_ad_new, classad_ad_parse or classad_ad_clone, freed with
   classad_ad_free; an ad borrowed from a list or a pool is never freed. */
typedef struct ClassadAd ClassadAd;

/*
 The `now` that tells `classad_negotiator_cycle` to use the
 accountant's last update as the cycle's time (so that the priorities
 are used as they are, without decay).
 */
#define CLASSAD_NOW_LAST_UPDATE INT64_MIN

/*
 The ABI's major version: a program built against another major version
 must not use this library.
 */
#define CLASSAD_ABI_VERSION_MAJOR 0

/*
 The ABI's minor version: a program built against minor version N runs
 with this library when this is N or more (and the major is the same).
 */
#define CLASSAD_ABI_VERSION_MINOR 1

/*
 The ABI's patch version.
 */
#define CLASSAD_ABI_VERSION_PATCH 0

/*
 What a function did: `CLASSAD_STATUS_OK` (0), or why it did not.

 New codes may be added in a minor version of the ABI: treat an
 unknown nonzero code as a failure.
 */
typedef enum {
    /*
     Done.
     */
    CLASSAD_STATUS_OK = 0,
    /*
     A wrong argument: a NULL pointer where a handle or a result must
     go, an index out of range, an unknown enumerator.
     */
    CLASSAD_STATUS_ARGUMENT = 1,
    /*
     Text that is not UTF-8.
     */
    CLASSAD_STATUS_UTF8 = 2,
    /*
     Text that does not parse: the error's line and column say where.
     */
    CLASSAD_STATUS_PARSE = 3,
    /*
     A file that cannot be read (the message names it and says why).
     */
    CLASSAD_STATUS_IO = 4,
    /*
     A configuration that does not read, or a knob of the wrong type.
     */
    CLASSAD_STATUS_CONFIG = 5,
    /*
     The attribute is not in the ad.
     */
    CLASSAD_STATUS_NOT_FOUND = 6,
    /*
     The accountant or the negotiator refused (a name too long, a value
     out of range, a cycle that cannot run).
     */
    CLASSAD_STATUS_NEGOTIATOR = 7,
    /*
     A bug in the library (a Rust panic, caught): the message says
     where. Handles given to the call are still valid to free.
     */
    CLASSAD_STATUS_INTERNAL = 8,
} ClassadStatus;

/*
 The type of a [`ClassadValue`].

 New types may be added in a minor version of the ABI.
 */
typedef enum {
    /*
     UNDEFINED: a missing attribute, an operation on one.
     */
    CLASSAD_VALUE_TYPE_UNDEFINED = 0,
    /*
     ERROR: an ill-typed operation.
     */
    CLASSAD_VALUE_TYPE_ERROR = 1,
    /*
     `true` or `false`: `classad_value_bool`.
     */
    CLASSAD_VALUE_TYPE_BOOL = 2,
    /*
     A 64-bit integer: `classad_value_int`.
     */
    CLASSAD_VALUE_TYPE_INT = 3,
    /*
     A double: `classad_value_real`.
     */
    CLASSAD_VALUE_TYPE_REAL = 4,
    /*
     A string: `classad_value_string`.
     */
    CLASSAD_VALUE_TYPE_STRING = 5,
    /*
     A point in time: `classad_value_abstime`.
     */
    CLASSAD_VALUE_TYPE_ABS_TIME = 6,
    /*
     A duration: `classad_value_reltime`.
     */
    CLASSAD_VALUE_TYPE_REL_TIME = 7,
    /*
     A list: its length is `classad_value_list_len`; `classad_value_print`
     prints it.
     */
    CLASSAD_VALUE_TYPE_LIST = 8,
    /*
     A nested ad: `classad_value_print` prints it.
     */
    CLASSAD_VALUE_TYPE_AD = 9,
} ClassadValueType;

/*
 Priorities and usage. Made by `classad_accountant_new` (nobody has a
 history) or `classad_accountant_load` (from an accountant log), freed
 with `classad_accountant_free`.
 */
typedef struct ClassadAccountant ClassadAccountant;

/*
 Ads in order. Made by `classad_ad_list_new`, `classad_ad_list_parse`
 or `classad_ad_list_read_file`, freed with `classad_ad_list_free`
 (which frees the ads it holds).
 */
typedef struct ClassadAdList ClassadAdList;

/*
 The outcome of a cycle. Made by `classad_negotiator_cycle` or
 `classad_snapshot_cycle`, freed with `classad_cycle_free`; the strings
 its functions give are borrowed from it.
 */
typedef struct ClassadCycle ClassadCycle;

/*
 What went wrong in a call: its status code, a message, and for text
 that does not parse the line and column (from 1; 0 when unknown).

 Made by the library, freed by the caller with [`classad_error_free`].
 Its functions may be called from any thread; it is not shared by the
 library once returned.
 */
typedef struct ClassadError ClassadError;

/*
 A parsed expression (`TARGET.Memory >= RequestMemory`, `"text"`,
 `[ a = 1 ]`, ...). Made by `classad_expr_parse` or `classad_ad_get`,
 freed with `classad_expr_free`.
 */
typedef struct ClassadExpr ClassadExpr;

/*
 The matches of one job, refilled by each `classad_pool_matches`: the
 caller makes one with `classad_matches_new` and reuses it, so that
 matching job after job allocates nothing once it has grown.
 */
typedef struct ClassadMatches ClassadMatches;

/*
 A negotiator: its settings (`NEGOTIATOR_*`, `PREEMPTION_*`, group
 quotas, concurrency limits, ...) and policy expressions, parsed once.
 Made by `classad_negotiator_new` or `classad_negotiator_load`, freed
 with `classad_negotiator_free`.
 */
typedef struct ClassadNegotiator ClassadNegotiator;

/*
 Slot ads prepared once (each one's own `Requirements` and `Rank`) to
 be matched against many jobs. Made by `classad_pool_new`, freed with
 `classad_pool_free`.

 Thread safety: `classad_pool_matches`, `classad_pool_count`,
 `classad_pool_len` and `classad_pool_ad` may run on the same pool from
 many threads at once (each with its own `ClassadMatches`);
 `classad_pool_push` and `classad_pool_replace` need the pool to
 themselves.
 */
typedef struct ClassadPool ClassadPool;

/*
 A value: UNDEFINED, ERROR, a boolean, an integer, a real, a string, a
 time, a list or an ad. Made empty (UNDEFINED) by `classad_value_new`,
 filled by `classad_expr_eval` and `classad_ad_eval` (again and again),
 freed with `classad_value_free`. A value is used by one thread at a
 time while it is being filled; reading it from many is fine.
 */
typedef struct ClassadValue ClassadValue;

/*
 One submitter's priority.
 */
typedef struct {
    /*
     The real priority (decayed usage; 0.5 is the lowest).
     */
    double real_priority;
    /*
     The priority factor.
     */
    double priority_factor;
    /*
     The effective priority: real × factor (smaller is better).
     */
    double effective_priority;
} ClassadPriority;

/*
 A string made by the library for the caller: `len` bytes of UTF-8 at
 `ptr`, followed by a NUL (so `ptr` is also a C string when the text
 holds no NUL of its own). The caller frees it with
 [`classad_string_free`], once.
 */
typedef struct {
    /*
     The bytes (NULL only in a string that was never set).
     */
    char *ptr;
    /*
     Their number, the NUL after them not counted.
     */
    size_t len;
} ClassadString;

/*
 The text form of ads: one of the `CLASSAD_FORMAT_*` constants.
 */
typedef uint32_t ClassadFormat;

/*
 A string borrowed from a handle: `len` bytes of UTF-8 at `ptr`, not
 NUL-terminated (print it with `%.*s`). Valid as long as the handle it
 came from, which owns it: do not free it.
 */
typedef struct {
    /*
     The bytes.
     */
    const char *ptr;
    /*
     Their number.
     */
    size_t len;
} ClassadStr;

/*
 How names without a scope are looked up when evaluating: one of the
 `CLASSAD_SEMANTICS_*` constants.
 */
typedef uint32_t ClassadSemantics;

/*
 One match of a cycle. The strings are borrowed from the outcome.
 */
typedef struct {
    /*
     The submitter (`name@domain`, or the accounting group's name).
     */
    ClassadStr submitter;
    /*
     The job's `ClusterId`.
     */
    int64_t cluster_id;
    /*
     The job's `ProcId`.
     */
    int64_t proc_id;
    /*
     The slot's `Name`.
     */
    ClassadStr slot;
    /*
     How the slot was taken, in HTCondor's words: `no preemption`,
     `rank preemption`, `priority preemption`.
     */
    ClassadStr reason;
    /*
     The user preempted (empty when none).
     */
    ClassadStr preempting;
    /*
     What the match cost the submitter (the slot's weight).
     */
    double cost;
    /*
     The pie spin it was made in (1 is the first; 0 the floor round).
     */
    uint32_t spin;
} ClassadCycleMatch;

/*
 One rejected request of a cycle.
 */
typedef struct {
    /*
     The submitter.
     */
    ClassadStr submitter;
    /*
     The `ClusterId` of the job that stood for its autocluster.
     */
    int64_t cluster_id;
    /*
     Its `ProcId`.
     */
    int64_t proc_id;
    /*
     Why, in HTCondor's words (`no match found`, `submitter limit
     exceeded`, `insufficient priority`, ...).
     */
    ClassadStr reason;
    /*
     The pie spin it was rejected in (1 is the first; 0 the floor round).
     */
    uint32_t spin;
} ClassadCycleRejection;

/*
 One submitter's figures in a cycle, in negotiation order.
 */
typedef struct {
    /*
     The submitter.
     */
    ClassadStr name;
    /*
     Its effective priority at the cycle's start.
     */
    double effective_priority;
    /*
     Its priority factor.
     */
    double priority_factor;
    /*
     Its share of the pool (a fraction).
     */
    double share;
    /*
     The slot weight it could take.
     */
    double limit;
    /*
     Its usage (slot weight) before the cycle.
     */
    double usage_before;
    /*
     Its usage after.
     */
    double usage_after;
    /*
     Its idle jobs.
     */
    uint64_t idle_jobs;
    /*
     Its matches.
     */
    uint32_t matches;
    /*
     Its rejected requests.
     */
    uint32_t rejections;
    /*
     Why its negotiation stopped (`got all it wanted`, `share limit`,
     `ceiling`, `no idle jobs`, `not reached`).
     */
    ClassadStr stopped;
    /*
     A sentence of the table `negotiator-sim cycle` prints.
     */
    ClassadStr summary;
} ClassadCycleSubmitter;

/*
 One slot of a pool that matches a job.
 */
typedef struct {
    /*
     The slot's index in the pool.
     */
    size_t index;
    /*
     The job's `Rank` of the slot.
     */
    double job_rank;
    /*
     The slot's `Rank` of the job.
     */
    double slot_rank;
} ClassadMatch;

/*
 Reading: detected from the first bytes (`[` new, `{`/`[{` JSON, `<`
 XML, otherwise old). Writing: the new syntax.
 */
#define CLASSAD_FORMAT_AUTO 0

/*
 The new syntax: `[ Name = value; ... ]`.
 */
#define CLASSAD_FORMAT_NEW 1

/*
 The old ("long") syntax: one `Name = value` per line, ads separated by
 blank lines (`condor_status -long`).
 */
#define CLASSAD_FORMAT_OLD 2

/*
 JSON, as `condor_status -json` writes it.
 */
#define CLASSAD_FORMAT_JSON 3

/*
 XML, as `condor_status -xml` writes it.
 */
#define CLASSAD_FORMAT_XML 4

/*
 libclassad's default: a name is looked up in MY (and its parents) only.
 */
#define CLASSAD_SEMANTICS_NEW 0

/*
 HTCondor's daemons and tools: a name missing from MY is looked up in
 TARGET (what `Requirements` in a real pool relies on).
 */
#define CLASSAD_SEMANTICS_OLD 1

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/*
 A new accountant with the settings of `negotiator`'s configuration
 (half-life, default factors, groups) and no history: every submitter
 at the lowest priority. Stored in `*out`; the caller frees it with
 [`classad_accountant_free`].

 # Safety
 `negotiator` is a live negotiator; `out` a valid place for a pointer;
 `error` NULL or one.
 */
ClassadStatus classad_accountant_new(const ClassadNegotiator *negotiator,
                                     ClassadAccountant **out,
                                     ClassadError **error);

/*
 Reads the accountant log `path` (`Accountantnew.log` of the central
 manager's spool; `path_len` bytes of UTF-8) with the settings of
 `negotiator`'s configuration, without writing to it: changes stay in
 memory. A missing file or one that is not a log is
 `CLASSAD_STATUS_IO`; a torn last record is left out, as HTCondor
 leaves it. Stored in `*out`; the caller frees it with
 [`classad_accountant_free`].

 # Safety
 `negotiator` is a live negotiator; `path` points to `path_len` bytes;
 `out` is a valid place for a pointer; `error` NULL or one.
 */
ClassadStatus classad_accountant_load(const ClassadNegotiator *negotiator,
                                      const char *path,
                                      size_t path_len,
                                      ClassadAccountant **out,
                                      ClassadError **error);

/*
 Frees an accountant. NULL is allowed.

 # Safety
 `accountant` is NULL or made by this library, freed once.
 */
void classad_accountant_free(ClassadAccountant *accountant);

/*
 When the priorities were last updated (seconds since 1970; 0: never).
 0 when `accountant` is NULL.

 # Safety
 `accountant` is NULL or a live accountant.
 */
int64_t classad_accountant_last_update(const ClassadAccountant *accountant);

/*
 The priority of `submitter` (`name@domain`, `name_len` bytes), in
 `*out`; a submitter without a record has the lowest priority and the
 default factor.

 # Safety
 `accountant` is a live accountant; `name` points to `name_len` bytes;
 `out` a valid place for a [`ClassadPriority`]; `error` NULL or a valid
 place for a pointer.
 */
ClassadStatus classad_accountant_priority(const ClassadAccountant *accountant,
                                          const char *name,
                                          size_t name_len,
                                          ClassadPriority *out,
                                          ClassadError **error);

/*
 Every submitter's and group's priority as `condor_userprio -allusers
 -long` prints them (one ad in the old syntax: `Name1`, `Priority1`,
 ...), in `*out`, which the caller frees with `classad_string_free`.

 # Safety
 `accountant` is a live accountant; `out` a valid place for a
 [`ClassadString`]; `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_accountant_userprio(const ClassadAccountant *accountant,
                                          ClassadString *out,
                                          ClassadError **error);

/*
 A new, empty ad. Free it with [`classad_ad_free`].
 */
ClassadAd *classad_ad_new(void);

/*
 Reads one ad from `text` (`len` bytes of UTF-8) in `format`
 (`CLASSAD_FORMAT_AUTO` detects it) into a new ad stored in `*out`,
 which the caller frees with [`classad_ad_free`]. Text holding no ad or
 more than one is an error (`CLASSAD_STATUS_PARSE`; lists of ads are
 `classad_ad_list_parse`'s); so is text that does not parse, with the
 error's line and column.

 Thread safety: any thread, at any time.

 # Safety
 `text` points to `len` readable bytes; `out` is a valid place for a
 pointer; `error` is NULL or a valid place for one.
 */
ClassadStatus classad_ad_parse(const char *text,
                               size_t len,
                               ClassadFormat format,
                               ClassadAd **out,
                               ClassadError **error);

/*
 A copy of `ad` (NULL when `ad` is NULL), which the caller frees with
 [`classad_ad_free`].

 # Safety
 `ad` is NULL or a live ad.
 */
ClassadAd *classad_ad_clone(const ClassadAd *ad);

/*
 Frees an ad made by `classad_ad_new`, `classad_ad_parse` or
 `classad_ad_clone` (never one borrowed from a list or a pool). NULL is
 allowed.

 # Safety
 `ad` is NULL or such an ad, freed once.
 */
void classad_ad_free(ClassadAd *ad);

/*
 The number of attributes of `ad` (0 when `ad` is NULL).

 # Safety
 `ad` is NULL or a live ad.
 */
size_t classad_ad_size(const ClassadAd *ad);

/*
 The name of attribute `index` of `ad` (from 0, in the order they were
 set), as written when first set, in `*out`: borrowed, valid for the
 life of the process (names are interned). `CLASSAD_STATUS_ARGUMENT`
 past the last.

 # Safety
 `ad` is a live ad; `out` a valid place for a [`ClassadStr`]; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_name(const ClassadAd *ad,
                              size_t index,
                              ClassadStr *out,
                              ClassadError **error);

/*
 Sets attribute `name` of `ad` to the expression `text` (new syntax,
 e.g. `TARGET.Memory >= 2048`, `"a string"`, `{1, 2}`), replacing what
 it was. Text that does not parse is `CLASSAD_STATUS_PARSE` with its
 line and column; the ad is then unchanged.

 # Safety
 `ad` is a live ad no other thread uses; `name`/`text` point to their
 lengths' bytes; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_set(ClassadAd *ad,
                             const char *name,
                             size_t name_len,
                             const char *text,
                             size_t text_len,
                             ClassadError **error);

/*
 Sets attribute `name` of `ad` to the integer `value`.

 # Safety
 `ad` is a live ad no other thread uses; `name` points to `name_len`
 bytes; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_set_int(ClassadAd *ad,
                                 const char *name,
                                 size_t name_len,
                                 int64_t value,
                                 ClassadError **error);

/*
 Sets attribute `name` of `ad` to the real `value`.

 # Safety
 `ad` is a live ad no other thread uses; `name` points to `name_len`
 bytes; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_set_real(ClassadAd *ad,
                                  const char *name,
                                  size_t name_len,
                                  double value,
                                  ClassadError **error);

/*
 Sets attribute `name` of `ad` to `value`, `true` or `false`.

 # Safety
 `ad` is a live ad no other thread uses; `name` points to `name_len`
 bytes; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_set_bool(ClassadAd *ad,
                                  const char *name,
                                  size_t name_len,
                                  bool value,
                                  ClassadError **error);

/*
 Sets attribute `name` of `ad` to the string literal `value` (`len`
 bytes of UTF-8, taken as they are: no escapes are read).

 # Safety
 `ad` is a live ad no other thread uses; `name` and `value` point to
 their lengths' bytes; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_set_string(ClassadAd *ad,
                                    const char *name,
                                    size_t name_len,
                                    const char *value,
                                    size_t value_len,
                                    ClassadError **error);

/*
 Removes attribute `name` from `ad`: `CLASSAD_STATUS_NOT_FOUND` when it
 has none.

 # Safety
 `ad` is a live ad no other thread uses; `name` points to `name_len`
 bytes; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_remove(ClassadAd *ad,
                                const char *name,
                                size_t name_len,
                                ClassadError **error);

/*
 Evaluates attribute `name` of `ad` with `ad` as MY and `target` (NULL
 for none) as TARGET, in `semantics`, into `value` (made by
 `classad_value_new`; what it held is replaced). A missing attribute is
 the value UNDEFINED, not an error.

 Thread safety: many threads may evaluate the same ads at once, each
 into its own value.

 # Safety
 `ad` is a live ad, `target` NULL or one; `name` points to `name_len`
 bytes; `value` is a live value no other thread uses; `error` is NULL
 or a valid place for a pointer.
 */
ClassadStatus classad_ad_eval(const ClassadAd *ad,
                              const ClassadAd *target,
                              const char *name,
                              size_t name_len,
                              ClassadSemantics semantics,
                              ClassadValue *value,
                              ClassadError **error);

/*
 `ad` as text in `format` (`CLASSAD_FORMAT_AUTO`: the new syntax), in
 `*out`, which the caller frees with `classad_string_free`.

 # Safety
 `ad` is a live ad; `out` is a valid place for a [`ClassadString`];
 `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_print(const ClassadAd *ad,
                               ClassadFormat format,
                               ClassadString *out,
                               ClassadError **error);

/*
 A new, empty list. Free it with [`classad_ad_list_free`].
 */
ClassadAdList *classad_ad_list_new(void);

/*
 Reads every ad of `text` (`len` bytes of UTF-8) in `format`
 (`CLASSAD_FORMAT_AUTO` detects it) into a new list stored in `*out`,
 which the caller frees with [`classad_ad_list_free`]. An ad that does
 not read is `CLASSAD_STATUS_PARSE`, with its line and column in the
 text.

 # Safety
 `text` points to `len` readable bytes; `out` is a valid place for a
 pointer; `error` is NULL or a valid place for one.
 */
ClassadStatus classad_ad_list_parse(const char *text,
                                    size_t len,
                                    ClassadFormat format,
                                    ClassadAdList **out,
                                    ClassadError **error);

/*
 Reads every ad of the file `path` (`path_len` bytes of UTF-8): any of
 HTCondor's formats, detected, gzipped or not, as `condor_status -long`,
 `condor_q -json` or `condor_status -xml` wrote it. The list, stored in
 `*out`, is the caller's to free with [`classad_ad_list_free`]. A file
 that cannot be read is `CLASSAD_STATUS_IO`; an ad that does not read,
 `CLASSAD_STATUS_PARSE` with its line and column.

 # Safety
 `path` points to `path_len` readable bytes; `out` is a valid place for
 a pointer; `error` is NULL or a valid place for one.
 */
ClassadStatus classad_ad_list_read_file(const char *path,
                                        size_t path_len,
                                        ClassadAdList **out,
                                        ClassadError **error);

/*
 Frees a list and its ads. NULL is allowed.

 # Safety
 `list` is NULL or a list made by this library, freed once; no ad
 borrowed from it is used afterwards.
 */
void classad_ad_list_free(ClassadAdList *list);

/*
 The number of ads in `list` (0 when `list` is NULL).

 # Safety
 `list` is NULL or a live list.
 */
size_t classad_ad_list_len(const ClassadAdList *list);

/*
 Ad `index` of `list` (from 0), borrowed: valid while the list lives
 and is not pushed to; do not free it (`classad_ad_clone` makes a copy
 to keep). NULL when `list` is NULL or `index` is past the end.

 # Safety
 `list` is NULL or a live list.
 */
const ClassadAd *classad_ad_list_get(const ClassadAdList *list, size_t index);

/*
 Appends a copy of `ad` to `list` (the caller still owns `ad`). Ads
 borrowed from the list before are invalid afterwards.

 # Safety
 `list` is a live list no other thread uses; `ad` a live ad;
 `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_list_push(ClassadAdList *list, const ClassadAd *ad, ClassadError **error);

/*
 Every ad of `list` as text in `format` (`CLASSAD_FORMAT_AUTO`: the new
 syntax), in `*out`, which the caller frees with `classad_string_free`.

 # Safety
 `list` is a live list; `out` a valid place for a [`ClassadString`];
 `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_ad_list_print(const ClassadAdList *list,
                                    ClassadFormat format,
                                    ClassadString *out,
                                    ClassadError **error);

/*
 Runs one negotiation cycle: `slots` (every slot ad, claimed ones
 included), `jobs` (idle jobs, JobStatus 1, are negotiated; running ones
 counted), `submitters` (submitter ads, whose `LastHeardFrom` breaks
 ties between equal priorities; NULL: none). The idle jobs are grouped
 into autoclusters as a schedd groups them. `accountant` holds the
 priorities and is charged the matches (NULL: a fresh one, dropped
 afterwards). `now` is the cycle's time in seconds since 1970, or
 [`CLASSAD_NOW_LAST_UPDATE`]. The outcome, stored in `*out`, is the
 caller's to free with `classad_cycle_free`; the lists are not changed.

 # Safety
 `negotiator` is a live negotiator; `accountant` NULL or a live
 accountant no other thread uses; `slots` and `jobs` live lists,
 `submitters` NULL or one; `out` a valid place for a pointer; `error`
 NULL or one.
 */
ClassadStatus classad_negotiator_cycle(const ClassadNegotiator *negotiator,
                                       ClassadAccountant *accountant,
                                       const ClassadAdList *slots,
                                       const ClassadAdList *jobs,
                                       const ClassadAdList *submitters,
                                       int64_t now,
                                       ClassadCycle **out,
                                       ClassadError **error);

/*
 Frees an outcome. NULL is allowed.

 # Safety
 `cycle` is NULL or made by this library, freed once; nothing borrowed
 from it is used afterwards.
 */
void classad_cycle_free(ClassadCycle *cycle);

/*
 The number of matches (0 when `cycle` is NULL).

 # Safety
 `cycle` is NULL or a live outcome.
 */
size_t classad_cycle_match_count(const ClassadCycle *cycle);

/*
 The number of rejected requests (0 when `cycle` is NULL).

 # Safety
 `cycle` is NULL or a live outcome.
 */
size_t classad_cycle_rejection_count(const ClassadCycle *cycle);

/*
 The number of submitters negotiated (0 when `cycle` is NULL).

 # Safety
 `cycle` is NULL or a live outcome.
 */
size_t classad_cycle_submitter_count(const ClassadCycle *cycle);

/*
 Match `index` (from 0, in the order they were made), in `*out`.
 `CLASSAD_STATUS_ARGUMENT` past the last.

 # Safety
 `cycle` is a live outcome; `out` a valid place for a
 [`ClassadCycleMatch`]; `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_cycle_match(const ClassadCycle *cycle,
                                  size_t index,
                                  ClassadCycleMatch *out,
                                  ClassadError **error);

/*
 Rejection `index` (from 0, in order), in `*out`.
 `CLASSAD_STATUS_ARGUMENT` past the last.

 # Safety
 `cycle` is a live outcome; `out` a valid place for a
 [`ClassadCycleRejection`]; `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_cycle_rejection(const ClassadCycle *cycle,
                                      size_t index,
                                      ClassadCycleRejection *out,
                                      ClassadError **error);

/*
 Submitter `index` (from 0, in negotiation order), in `*out`.
 `CLASSAD_STATUS_ARGUMENT` past the last.

 # Safety
 `cycle` is a live outcome; `out` a valid place for a
 [`ClassadCycleSubmitter`]; `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_cycle_submitter(const ClassadCycle *cycle,
                                      size_t index,
                                      ClassadCycleSubmitter *out,
                                      ClassadError **error);

/*
 The whole outcome as JSON (matches, rejections, submitters, the
 cycle's statistics, groups), in `*out`, which the caller frees with
 `classad_string_free`.

 # Safety
 `cycle` is a live outcome; `out` a valid place for a
 [`ClassadString`]; `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_cycle_json(const ClassadCycle *cycle,
                                 ClassadString *out,
                                 ClassadError **error);

/*
 One cycle on a pool snapshot's files, as `negotiator-sim cycle` runs
 it: `slots` (`condor_status -long` or `-json` output), `jobs`
 (`condor_q -allusers -long` or `-json`), `config` (NULL: HTCondor's
 defaults), `accountant_log` (NULL: nobody has a history) and
 `submitters` (`condor_status -submitters -long`; NULL: none), each a
 file name of UTF-8 with its length; duplicate slot and job ads are
 read once (the later wins), and the cycle's time is the priorities'
 last update. `resend_matched_jobs` is
 `classad_negotiator_set_resend_matched_jobs`'s. The outcome, stored in `*out`, is the caller's to free
 with [`classad_cycle_free`].

 # Safety
 Each name is NULL (where allowed) or points to its length's bytes;
 `out` is a valid place for a pointer; `error` NULL or one.
 */
ClassadStatus classad_snapshot_cycle(const char *slots,
                                     size_t slots_len,
                                     const char *jobs,
                                     size_t jobs_len,
                                     const char *config,
                                     size_t config_len,
                                     const char *accountant_log,
                                     size_t accountant_log_len,
                                     const char *submitters,
                                     size_t submitters_len,
                                     bool resend_matched_jobs,
                                     ClassadCycle **out,
                                     ClassadError **error);

/*
 The status code of `error` (`CLASSAD_STATUS_ARGUMENT` when `error` is
 NULL).

 # Safety
 `error` is NULL or an error returned by this library and not yet freed.
 */
ClassadStatus classad_error_code(const ClassadError *error);

/*
 The message of `error`: UTF-8, NUL-terminated, owned by `error` (valid
 until [`classad_error_free`]; do not free it). An empty string when
 `error` is NULL.

 # Safety
 `error` is NULL or an error returned by this library and not yet freed.
 */
const char *classad_error_message(const ClassadError *error);

/*
 The line (from 1) of the text where the problem is, for
 `CLASSAD_STATUS_PARSE`; 0 when there is none.

 # Safety
 `error` is NULL or an error returned by this library and not yet freed.
 */
size_t classad_error_line(const ClassadError *error);

/*
 The column (from 1, in characters) of the problem on its line, for
 `CLASSAD_STATUS_PARSE`; 0 when there is none.

 # Safety
 `error` is NULL or an error returned by this library and not yet freed.
 */
size_t classad_error_column(const ClassadError *error);

/*
 Frees an error. NULL is allowed (nothing happens).

 # Safety
 `error` is NULL or an error returned by this library, freed once.
 */
void classad_error_free(ClassadError *error);

/*
 Parses `text` (`len` bytes of UTF-8, the new syntax) into a new
 expression stored in `*out`, which the caller frees with
 [`classad_expr_free`]. Text that does not parse is
 `CLASSAD_STATUS_PARSE`, with the line and column of the problem.

 # Safety
 `text` points to `len` readable bytes; `out` is a valid place for a
 pointer; `error` is NULL or a valid place for one.
 */
ClassadStatus classad_expr_parse(const char *text,
                                 size_t len,
                                 ClassadExpr **out,
                                 ClassadError **error);

/*
 Frees an expression. NULL is allowed.

 # Safety
 `expr` is NULL or an expression made by this library, freed once.
 */
void classad_expr_free(ClassadExpr *expr);

/*
 Evaluates `expr` with `my` as MY and `target` as TARGET (either may be
 NULL: no such ad), in `semantics`, into `value` (made by
 `classad_value_new`; what it held is replaced). Evaluating into the
 same value again and again allocates nothing for numbers and booleans.

 Thread safety: many threads may evaluate the same expression and ads
 at once, each into its own value.

 # Safety
 `expr` is a live expression; `my` and `target` NULL or live ads;
 `value` a live value no other thread uses; `error` NULL or a valid
 place for a pointer.
 */
ClassadStatus classad_expr_eval(const ClassadExpr *expr,
                                const ClassadAd *my,
                                const ClassadAd *target,
                                ClassadSemantics semantics,
                                ClassadValue *value,
                                ClassadError **error);

/*
 `expr` as text, in `*out` (freed by the caller with
 `classad_string_free`): the old syntax for `CLASSAD_FORMAT_OLD`, the
 new one for every other format, as libclassad unparses it.

 # Safety
 `expr` is a live expression; `out` is a valid place for a
 [`ClassadString`]; `error` is NULL or a valid place for a pointer.
 */
ClassadStatus classad_expr_print(const ClassadExpr *expr,
                                 ClassadFormat format,
                                 ClassadString *out,
                                 ClassadError **error);

/*
 The expression of attribute `name` of `ad` (not evaluated) in a new
 handle stored in `*out`, which the caller frees with
 `classad_expr_free`; `CLASSAD_STATUS_NOT_FOUND` when the ad has none.

 # Safety
 `ad` is a live ad; `name` points to `name_len` bytes; `out` is a valid
 place for a pointer; `error` is NULL or one.
 */
ClassadStatus classad_ad_get(const ClassadAd *ad,
                             const char *name,
                             size_t name_len,
                             ClassadExpr **out,
                             ClassadError **error);

/*
 Sets attribute `name` of `ad` to a parsed expression (shared, not
 copied: expressions never change).

 # Safety
 `ad` is a live ad no other thread uses; `expr` a live expression;
 `name` points to `name_len` bytes; `error` is NULL or a valid place
 for a pointer.
 */
ClassadStatus classad_ad_set_expr(ClassadAd *ad,
                                  const char *name,
                                  size_t name_len,
                                  const ClassadExpr *expr,
                                  ClassadError **error);

/*
 Whether `left` and `right` match (each one's `Requirements` true
 against the other) in `semantics`, in `*matched`; each side's `Rank`
 of the other in `*left_rank` and `*right_rank` (either may be NULL:
 not wanted).

 Thread safety: any thread, on ads no thread is changing.

 # Safety
 `left` and `right` are live ads; `matched` a valid place for a bool;
 `left_rank` and `right_rank` NULL or valid places for a double;
 `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_match(const ClassadAd *left,
                            const ClassadAd *right,
                            ClassadSemantics semantics,
                            bool *matched,
                            double *left_rank,
                            double *right_rank,
                            ClassadError **error);

/*
 A pool of copies of the ads of `slots` (NULL: an empty pool),
 evaluated in `semantics` (HTCondor's negotiator uses
 `CLASSAD_SEMANTICS_OLD`), stored in `*out`; the caller frees it with
 [`classad_pool_free`] and still owns `slots`.

 # Safety
 `slots` is NULL or a live list; `out` a valid place for a pointer;
 `error` NULL or one.
 */
ClassadStatus classad_pool_new(const ClassadAdList *slots,
                               ClassadSemantics semantics,
                               ClassadPool **out,
                               ClassadError **error);

/*
 Frees a pool and its ads. NULL is allowed.

 # Safety
 `pool` is NULL or a pool made by this library, freed once; no ad
 borrowed from it is used afterwards.
 */
void classad_pool_free(ClassadPool *pool);

/*
 The number of slots in `pool` (0 when `pool` is NULL).

 # Safety
 `pool` is NULL or a live pool.
 */
size_t classad_pool_len(const ClassadPool *pool);

/*
 Slot `index` of `pool`, borrowed: valid until that slot is replaced or
 the pool freed; do not free it. NULL past the end.

 # Safety
 `pool` is NULL or a live pool.
 */
const ClassadAd *classad_pool_ad(const ClassadPool *pool, size_t index);

/*
 Adds a copy of `ad` after the pool's slots, prepared; its index goes
 to `*index` (NULL: not wanted).

 # Safety
 `pool` is a live pool no other thread uses; `ad` a live ad; `index`
 NULL or a valid place for a size_t; `error` NULL or a valid place for
 a pointer.
 */
ClassadStatus classad_pool_push(ClassadPool *pool,
                                const ClassadAd *ad,
                                size_t *index,
                                ClassadError **error);

/*
 Replaces slot `index` of `pool` with a copy of `ad` (a slot claimed,
 released or changed), prepared; the other slots are left as they are.
 `CLASSAD_STATUS_ARGUMENT` past the end.

 # Safety
 `pool` is a live pool no other thread uses; `ad` a live ad; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_pool_replace(ClassadPool *pool,
                                   size_t index,
                                   const ClassadAd *ad,
                                   ClassadError **error);

/*
 Matches `job` against every slot of `pool`, into `matches` (what it
 held is replaced): the slots that match, in pool order, with both
 ranks.

 # Safety
 `pool` is a live pool; `job` a live ad; `matches` a live
 `ClassadMatches` no other thread uses; `error` NULL or a valid place
 for a pointer.
 */
ClassadStatus classad_pool_matches(const ClassadPool *pool,
                                   const ClassadAd *job,
                                   ClassadMatches *matches,
                                   ClassadError **error);

/*
 The number of slots of `pool` that match `job`, in `*count`.

 # Safety
 `pool` is a live pool; `job` a live ad; `count` a valid place for a
 size_t; `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_pool_count(const ClassadPool *pool,
                                 const ClassadAd *job,
                                 size_t *count,
                                 ClassadError **error);

/*
 A new, empty set of matches for [`classad_pool_matches`] to fill.
 Free it with [`classad_matches_free`].
 */
ClassadMatches *classad_matches_new(void);

/*
 Frees a set of matches. NULL is allowed.

 # Safety
 `matches` is NULL or made by [`classad_matches_new`], freed once.
 */
void classad_matches_free(ClassadMatches *matches);

/*
 The number of matches (0 when `matches` is NULL).

 # Safety
 `matches` is NULL or a live set of matches.
 */
size_t classad_matches_len(const ClassadMatches *matches);

/*
 The matches as an array of `classad_matches_len` elements, borrowed:
 valid until `matches` is filled again or freed. NULL when there are
 none.

 # Safety
 `matches` is NULL or a live set of matches.
 */
const ClassadMatch *classad_matches_data(const ClassadMatches *matches);

/*
 A negotiator configured by `config` (`len` bytes of UTF-8 in HTCondor's
 configuration language, read as the negotiator reads its files; NULL:
 HTCondor's defaults), stored in `*out`; the caller frees it with
 [`classad_negotiator_free`]. A configuration that does not read, or a
 knob of the wrong type, is `CLASSAD_STATUS_CONFIG` with the line.

 # Safety
 `config` is NULL or points to `len` bytes; `out` a valid place for a
 pointer; `error` NULL or one.
 */
ClassadStatus classad_negotiator_new(const char *config,
                                     size_t len,
                                     ClassadNegotiator **out,
                                     ClassadError **error);

/*
 A negotiator configured by the file `path` (`path_len` bytes of
 UTF-8), with its includes, as `condor_config_val -negotiator` reads
 it; a `condor_config_val -negotiator -dump` output is read alone.
 Stored in `*out`; the caller frees it with [`classad_negotiator_free`].

 # Safety
 `path` points to `path_len` bytes; `out` a valid place for a pointer;
 `error` NULL or one.
 */
ClassadStatus classad_negotiator_load(const char *path,
                                      size_t path_len,
                                      ClassadNegotiator **out,
                                      ClassadError **error);

/*
 Frees a negotiator. NULL is allowed.

 # Safety
 `negotiator` is NULL or made by this library, freed once.
 */
void classad_negotiator_free(ClassadNegotiator *negotiator);

/*
 Makes the schedd's side of later cycles offer jobs matched in an
 earlier spin again (`false`, the default: a matched job is not offered
 twice), as a schedd whose matches are all declined does: pools of
 advertised test slots (`negotiator-sim cycle --resend-matched-jobs`).

 # Safety
 `negotiator` is a live negotiator no other thread uses; `error` NULL
 or a valid place for a pointer.
 */
ClassadStatus classad_negotiator_set_resend_matched_jobs(ClassadNegotiator *negotiator,
                                                         bool resend,
                                                         ClassadError **error);

/*
 Frees a string the library made, and sets it empty (`ptr` NULL, `len`
 0), so that freeing it twice does nothing. NULL is allowed.

 # Safety
 `string` is NULL or points to a [`ClassadString`] filled by this
 library (or set empty by this function).
 */
void classad_string_free(ClassadString *string);

/*
 A new value, UNDEFINED, to evaluate into. Free it with
 [`classad_value_free`].
 */
ClassadValue *classad_value_new(void);

/*
 Frees a value. NULL is allowed.

 # Safety
 `value` is NULL or a value made by [`classad_value_new`], freed once.
 */
void classad_value_free(ClassadValue *value);

/*
 The type of `value` (`CLASSAD_VALUE_TYPE_UNDEFINED` for NULL).

 # Safety
 `value` is NULL or a live value.
 */
ClassadValueType classad_value_type(const ClassadValue *value);

/*
 The boolean of `value`, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for the result; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_bool(const ClassadValue *value, bool *out, ClassadError **error);

/*
 The integer of `value`, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for the result; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_int(const ClassadValue *value, int64_t *out, ClassadError **error);

/*
 The number of `value`, an integer or a real, as a double, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for the result; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_real(const ClassadValue *value,
                                 double *out,
                                 ClassadError **error);

/*
 The seconds since 1970 (UTC) of an absolute time, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for the result; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_abstime(const ClassadValue *value,
                                    int64_t *out,
                                    ClassadError **error);

/*
 The seconds of a relative time (may be fractional or negative), in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for the result; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_reltime(const ClassadValue *value,
                                    double *out,
                                    ClassadError **error);

/*
 The number of elements of a list, in `*out`; `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for the result; `error`
 NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_list_len(const ClassadValue *value, size_t *out, ClassadError **error);

/*
 The string of `value`, borrowed in `*out` (valid until `value` is
 evaluated into again or freed; not NUL-terminated);
 `CLASSAD_STATUS_ARGUMENT` for another type.

 # Safety
 `value` is a live value; `out` a valid place for a [`ClassadStr`];
 `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_string(const ClassadValue *value,
                                   ClassadStr *out,
                                   ClassadError **error);

/*
 `value` as a ClassAd literal (new syntax: `"text"` quoted, `{ 1, 2 }`,
 `[ a = 1 ]`, `undefined`), in `*out`, which the caller frees with
 `classad_string_free`.

 # Safety
 `value` is a live value; `out` a valid place for a [`ClassadString`];
 `error` NULL or a valid place for a pointer.
 */
ClassadStatus classad_value_print(const ClassadValue *value,
                                  ClassadString *out,
                                  ClassadError **error);

/*
 The library's ABI version as one number, `major * 1000000 + minor *
 1000 + patch`, to compare with the header's `CLASSAD_ABI_VERSION_*`
 at run time: the library a program loaded may not be the one it was
 built against.

 Thread safety: any thread, at any time.
 */
uint32_t classad_abi_version(void);

/*
 The library's version, as text (`"0.1.0"`): NUL-terminated, static
 (never freed).

 Thread safety: any thread, at any time.
 */
const char *classad_version(void);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* CLASSAD_CAPI_H */
