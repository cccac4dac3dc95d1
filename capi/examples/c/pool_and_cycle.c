/*
 * pool_and_cycle: the C ABI of classad-rs on a pool snapshot.
 *
 *   pool_and_cycle SLOTS JOB CONFIG JOBS SUBMITTERS
 *
 * SLOTS: `condor_status -long` output; JOB: a file whose first ad is a
 * job; CONFIG: the negotiator's configuration; JOBS: `condor_q -long`
 * output; SUBMITTERS: `condor_status -submitters -long` output.
 *
 * Prints the job's Requirements and RequestMemory, how many slots match
 * it (a pool prepared once, checked pair by pair with classad_match), the
 * best slot by the job's Rank, then one negotiation cycle: each match,
 * each submitter's figures, and whether the same cycle run from the
 * files (classad_snapshot_cycle) agrees. Exits 1 with the library's
 * message on any error, having freed everything it made.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classad.h"

/* A C string as the (pointer, length) pair the ABI takes. */
#define TEXT(s) (s), strlen(s)

static int failed(const char *what, ClassadError *error)
{
    fprintf(stderr, "pool_and_cycle: %s: %s", what, classad_error_message(error));
    if (classad_error_line(error) > 0)
        fprintf(stderr, " (line %zu, column %zu)", classad_error_line(error), classad_error_column(error));
    fprintf(stderr, "\n");
    classad_error_free(error);
    return 1;
}

/* Prints the string attribute NAME of AD after LABEL. */
static int print_string_attr(const char *label, const ClassadAd *ad, const char *name, ClassadValue *value)
{
    ClassadError *error = NULL;
    ClassadStr text;
    if (classad_ad_eval(ad, NULL, TEXT(name), CLASSAD_SEMANTICS_OLD, value, &error) != CLASSAD_STATUS_OK ||
        classad_value_string(value, &text, &error) != CLASSAD_STATUS_OK)
        return failed(name, error);
    printf("%s%.*s", label, (int)text.len, text.ptr);
    return 0;
}

/* The job against the pool: the count, checked pair by pair, and the best slot. */
static int match_job(const ClassadAdList *slots, const ClassadAd *job)
{
    ClassadError *error = NULL;
    ClassadPool *pool = NULL;
    ClassadMatches *matches = classad_matches_new();
    ClassadValue *value = classad_value_new();
    int rc = 1;

    if (classad_pool_new(slots, CLASSAD_SEMANTICS_OLD, &pool, &error) != CLASSAD_STATUS_OK) {
        rc = failed("classad_pool_new", error);
        goto out;
    }
    if (classad_pool_matches(pool, job, matches, &error) != CLASSAD_STATUS_OK) {
        rc = failed("classad_pool_matches", error);
        goto out;
    }
    size_t n = classad_matches_len(matches);
    const ClassadMatch *found = classad_matches_data(matches);
    printf("matching: %zu of %zu slots\n", n, classad_pool_len(pool));

    /* The same answer one pair at a time. */
    size_t pairs = 0;
    for (size_t i = 0; i < classad_ad_list_len(slots); i++) {
        bool matched = false;
        if (classad_match(job, classad_ad_list_get(slots, i), CLASSAD_SEMANTICS_OLD, &matched, NULL, NULL,
                          &error) != CLASSAD_STATUS_OK) {
            rc = failed("classad_match", error);
            goto out;
        }
        pairs += matched;
    }
    printf("pair by pair: %s\n", pairs == n ? "the same" : "DIFFERENT");

    if (n > 0) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (found[i].job_rank > found[best].job_rank)
                best = i;
        if (print_string_attr("best: ", classad_pool_ad(pool, found[best].index), "Name", value))
            goto out;
        printf(" (job rank %g, slot rank %g)\n", found[best].job_rank, found[best].slot_rank);
    }
    rc = 0;
out:
    classad_value_free(value);
    classad_matches_free(matches);
    classad_pool_free(pool);
    return rc;
}

/* The job's Requirements as text and its RequestMemory evaluated. */
static int describe_job(const ClassadAd *job)
{
    ClassadError *error = NULL;
    ClassadExpr *requirements = NULL;
    ClassadString text = {0};
    ClassadValue *value = classad_value_new();
    int64_t memory = 0;
    int rc = 1;

    if (classad_ad_get(job, TEXT("Requirements"), &requirements, &error) != CLASSAD_STATUS_OK ||
        classad_expr_print(requirements, CLASSAD_FORMAT_NEW, &text, &error) != CLASSAD_STATUS_OK) {
        rc = failed("the job's Requirements", error);
        goto out;
    }
    printf("requirements: %s\n", text.ptr);
    if (classad_ad_eval(job, NULL, TEXT("RequestMemory"), CLASSAD_SEMANTICS_OLD, value, &error) !=
            CLASSAD_STATUS_OK ||
        classad_value_int(value, &memory, &error) != CLASSAD_STATUS_OK) {
        rc = failed("the job's RequestMemory", error);
        goto out;
    }
    printf("request_memory: %" PRId64 "\n", memory);
    rc = 0;
out:
    classad_string_free(&text);
    classad_expr_free(requirements);
    classad_value_free(value);
    return rc;
}

/* Whether two outcomes have the same matches in the same order. */
static bool same_matches(const ClassadCycle *a, const ClassadCycle *b)
{
    size_t n = classad_cycle_match_count(a);
    if (n != classad_cycle_match_count(b))
        return false;
    for (size_t i = 0; i < n; i++) {
        ClassadCycleMatch x, y;
        if (classad_cycle_match(a, i, &x, NULL) != CLASSAD_STATUS_OK ||
            classad_cycle_match(b, i, &y, NULL) != CLASSAD_STATUS_OK)
            return false;
        if (x.cluster_id != y.cluster_id || x.proc_id != y.proc_id || x.slot.len != y.slot.len ||
            memcmp(x.slot.ptr, y.slot.ptr, x.slot.len) != 0)
            return false;
    }
    return true;
}

/* One cycle on the lists, its matches and submitters printed, then the same from the files. */
static int run_cycle(char **argv, const ClassadAdList *slots)
{
    const char *config = argv[3], *jobs_file = argv[4], *submitters_file = argv[5];
    ClassadError *error = NULL;
    ClassadNegotiator *negotiator = NULL;
    ClassadAdList *jobs = NULL, *submitters = NULL;
    ClassadCycle *cycle = NULL, *again = NULL;
    int rc = 1;

    if (classad_negotiator_load(TEXT(config), &negotiator, &error) != CLASSAD_STATUS_OK) {
        rc = failed(config, error);
        goto out;
    }
    /* The snapshot's schedd declined every match: jobs are offered again. */
    classad_negotiator_set_resend_matched_jobs(negotiator, true, NULL);
    if (classad_ad_list_read_file(TEXT(jobs_file), &jobs, &error) != CLASSAD_STATUS_OK) {
        rc = failed(jobs_file, error);
        goto out;
    }
    if (classad_ad_list_read_file(TEXT(submitters_file), &submitters, &error) != CLASSAD_STATUS_OK) {
        rc = failed(submitters_file, error);
        goto out;
    }
    /* No accountant: everybody starts at the lowest priority. */
    if (classad_negotiator_cycle(negotiator, NULL, slots, jobs, submitters, CLASSAD_NOW_LAST_UPDATE, &cycle,
                                 &error) != CLASSAD_STATUS_OK) {
        rc = failed("classad_negotiator_cycle", error);
        goto out;
    }
    for (size_t i = 0; i < classad_cycle_match_count(cycle); i++) {
        ClassadCycleMatch m;
        if (classad_cycle_match(cycle, i, &m, &error) != CLASSAD_STATUS_OK) {
            rc = failed("classad_cycle_match", error);
            goto out;
        }
        printf("match %" PRId64 ".%" PRId64 " %.*s %.*s\n", m.cluster_id, m.proc_id, (int)m.slot.len, m.slot.ptr,
               (int)m.submitter.len, m.submitter.ptr);
    }
    for (size_t i = 0; i < classad_cycle_submitter_count(cycle); i++) {
        ClassadCycleSubmitter s;
        if (classad_cycle_submitter(cycle, i, &s, &error) != CLASSAD_STATUS_OK) {
            rc = failed("classad_cycle_submitter", error);
            goto out;
        }
        printf("submitter %.*s matches=%u rejections=%u idle=%" PRIu64 " stopped=%.*s\n", (int)s.name.len,
               s.name.ptr, s.matches, s.rejections, s.idle_jobs, (int)s.stopped.len, s.stopped.ptr);
    }
    if (classad_snapshot_cycle(TEXT(argv[1]), TEXT(jobs_file), TEXT(config), NULL, 0, TEXT(submitters_file), true,
                               &again, &error) != CLASSAD_STATUS_OK) {
        rc = failed("classad_snapshot_cycle", error);
        goto out;
    }
    printf("from the files: %s\n", same_matches(cycle, again) ? "the same matches" : "DIFFERENT matches");
    rc = 0;
out:
    classad_cycle_free(again);
    classad_cycle_free(cycle);
    classad_ad_list_free(submitters);
    classad_ad_list_free(jobs);
    classad_negotiator_free(negotiator);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s SLOTS JOB CONFIG JOBS SUBMITTERS\n", argv[0]);
        return 2;
    }
    if (classad_abi_version() / 1000000 != CLASSAD_ABI_VERSION_MAJOR) {
        fprintf(stderr, "pool_and_cycle: built for ABI %d, the library is %u\n", CLASSAD_ABI_VERSION_MAJOR,
                classad_abi_version());
        return 1;
    }
    ClassadError *error = NULL;
    ClassadAdList *slots = NULL, *job_file = NULL;
    int rc = 1;
    if (classad_ad_list_read_file(TEXT(argv[1]), &slots, &error) != CLASSAD_STATUS_OK) {
        rc = failed(argv[1], error);
        goto out;
    }
    if (classad_ad_list_read_file(TEXT(argv[2]), &job_file, &error) != CLASSAD_STATUS_OK) {
        rc = failed(argv[2], error);
        goto out;
    }
    const ClassadAd *job = classad_ad_list_get(job_file, 0);
    if (job == NULL) {
        fprintf(stderr, "pool_and_cycle: %s holds no ad\n", argv[2]);
        goto out;
    }
    rc = describe_job(job) || match_job(slots, job) || run_cycle(argv, slots);
out:
    classad_ad_list_free(job_file);
    classad_ad_list_free(slots);
    return rc;
}
