// pool_and_cycle: the C ABI of classad-rs from Go, through cgo; the same
// calls and the same output as examples/c/pool_and_cycle.c.
//
//	pool_and_cycle SLOTS JOB CONFIG JOBS SUBMITTERS
//
// Build: the library installed where pkg-config finds classad-capi.pc
// (capi/install.sh PREFIX, then PKG_CONFIG_PATH=PREFIX/lib/pkgconfig),
// then `go build`; run with PREFIX/lib on LD_LIBRARY_PATH.
package main

/*
#cgo pkg-config: classad-capi
#include <stdlib.h>
#include "classad.h"
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

// Error is a failed call: the library's status code, message and, for
// text that does not parse, the line and column.
type Error struct {
	Code         int
	Message      string
	Line, Column int
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d, column %d)", e.Message, e.Line, e.Column)
	}
	return e.Message
}

// check turns a status and its error into a Go error, freeing the C one.
func check(status C.ClassadStatus, cerr *C.ClassadError) error {
	if status == C.CLASSAD_STATUS_OK {
		return nil
	}
	defer C.classad_error_free(cerr)
	return &Error{
		Code:    int(status),
		Message: C.GoString(C.classad_error_message(cerr)),
		Line:    int(C.classad_error_line(cerr)),
		Column:  int(C.classad_error_column(cerr)),
	}
}

// text gives f a copy of s in C memory as the (pointer, length) pair the
// ABI takes, freed when f returns.
func text(s string, f func(*C.char, C.size_t) C.ClassadStatus) C.ClassadStatus {
	p := C.CString(s)
	defer C.free(unsafe.Pointer(p))
	return f(p, C.size_t(len(s)))
}

// str reads a string borrowed from a handle.
func str(s C.ClassadStr) string {
	return C.GoStringN(s.ptr, C.int(s.len))
}

// readAds reads a file of ads; the caller frees the list.
func readAds(path string) (*C.ClassadAdList, error) {
	var list *C.ClassadAdList
	var cerr *C.ClassadError
	status := text(path, func(p *C.char, n C.size_t) C.ClassadStatus {
		return C.classad_ad_list_read_file(p, n, &list, &cerr)
	})
	if err := check(status, cerr); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}

func matchJob(slots *C.ClassadAdList, job *C.ClassadAd) error {
	var pool *C.ClassadPool
	var cerr *C.ClassadError
	if err := check(C.classad_pool_new(slots, C.CLASSAD_SEMANTICS_OLD, &pool, &cerr), cerr); err != nil {
		return err
	}
	defer C.classad_pool_free(pool)
	matches := C.classad_matches_new()
	defer C.classad_matches_free(matches)
	if err := check(C.classad_pool_matches(pool, job, matches, &cerr), cerr); err != nil {
		return err
	}
	n := int(C.classad_matches_len(matches))
	fmt.Printf("matching: %d of %d slots\n", n, int(C.classad_pool_len(pool)))
	pairs := 0
	for i := 0; i < int(C.classad_ad_list_len(slots)); i++ {
		var matched C.bool
		slot := C.classad_ad_list_get(slots, C.size_t(i))
		if err := check(C.classad_match(job, slot, C.CLASSAD_SEMANTICS_OLD, &matched, nil, nil, &cerr), cerr); err != nil {
			return err
		}
		if matched {
			pairs++
		}
	}
	if pairs == n {
		fmt.Println("pair by pair: the same")
	} else {
		fmt.Println("pair by pair: DIFFERENT")
	}
	return nil
}

func sameMatches(a, b *C.ClassadCycle) bool {
	n := C.classad_cycle_match_count(a)
	if n != C.classad_cycle_match_count(b) {
		return false
	}
	for i := C.size_t(0); i < n; i++ {
		var x, y C.ClassadCycleMatch
		if C.classad_cycle_match(a, i, &x, nil) != C.CLASSAD_STATUS_OK ||
			C.classad_cycle_match(b, i, &y, nil) != C.CLASSAD_STATUS_OK {
			return false
		}
		if x.cluster_id != y.cluster_id || x.proc_id != y.proc_id || str(x.slot) != str(y.slot) {
			return false
		}
	}
	return true
}

func runCycle(args []string, slots *C.ClassadAdList) error {
	slotsFile, config, jobsFile, submittersFile := args[0], args[2], args[3], args[4]
	var negotiator *C.ClassadNegotiator
	var cerr *C.ClassadError
	status := text(config, func(p *C.char, n C.size_t) C.ClassadStatus {
		return C.classad_negotiator_load(p, n, &negotiator, &cerr)
	})
	if err := check(status, cerr); err != nil {
		return fmt.Errorf("%s: %w", config, err)
	}
	defer C.classad_negotiator_free(negotiator)
	// The snapshot's schedd declined every match: jobs are offered again.
	C.classad_negotiator_set_resend_matched_jobs(negotiator, true, nil)
	jobs, err := readAds(jobsFile)
	if err != nil {
		return err
	}
	defer C.classad_ad_list_free(jobs)
	submitters, err := readAds(submittersFile)
	if err != nil {
		return err
	}
	defer C.classad_ad_list_free(submitters)

	var cycle *C.ClassadCycle
	status = C.classad_negotiator_cycle(negotiator, nil, slots, jobs, submitters, C.CLASSAD_NOW_LAST_UPDATE, &cycle, &cerr)
	if err := check(status, cerr); err != nil {
		return err
	}
	defer C.classad_cycle_free(cycle)
	for i := C.size_t(0); i < C.classad_cycle_match_count(cycle); i++ {
		var m C.ClassadCycleMatch
		if err := check(C.classad_cycle_match(cycle, i, &m, &cerr), cerr); err != nil {
			return err
		}
		fmt.Printf("match %d.%d %s %s\n", int64(m.cluster_id), int64(m.proc_id), str(m.slot), str(m.submitter))
	}
	for i := C.size_t(0); i < C.classad_cycle_submitter_count(cycle); i++ {
		var s C.ClassadCycleSubmitter
		if err := check(C.classad_cycle_submitter(cycle, i, &s, &cerr), cerr); err != nil {
			return err
		}
		fmt.Printf("submitter %s matches=%d rejections=%d idle=%d stopped=%s\n",
			str(s.name), uint32(s.matches), uint32(s.rejections), uint64(s.idle_jobs), str(s.stopped))
	}

	// The same cycle from the files.
	cs, cj, cc, cu := C.CString(slotsFile), C.CString(jobsFile), C.CString(config), C.CString(submittersFile)
	defer func() {
		for _, p := range []*C.char{cs, cj, cc, cu} {
			C.free(unsafe.Pointer(p))
		}
	}()
	var again *C.ClassadCycle
	status = C.classad_snapshot_cycle(cs, C.size_t(len(slotsFile)), cj, C.size_t(len(jobsFile)),
		cc, C.size_t(len(config)), nil, 0, cu, C.size_t(len(submittersFile)), true, &again, &cerr)
	if err := check(status, cerr); err != nil {
		return err
	}
	defer C.classad_cycle_free(again)
	if sameMatches(cycle, again) {
		fmt.Println("from the files: the same matches")
	} else {
		fmt.Println("from the files: DIFFERENT matches")
	}
	return nil
}

func run(args []string) error {
	if major := C.classad_abi_version() / 1000000; major != C.CLASSAD_ABI_VERSION_MAJOR {
		return fmt.Errorf("built for ABI %d, the library is %d", C.CLASSAD_ABI_VERSION_MAJOR, major)
	}
	slots, err := readAds(args[0])
	if err != nil {
		return err
	}
	defer C.classad_ad_list_free(slots)
	jobFile, err := readAds(args[1])
	if err != nil {
		return err
	}
	defer C.classad_ad_list_free(jobFile)
	job := C.classad_ad_list_get(jobFile, 0)
	if job == nil {
		return fmt.Errorf("%s holds no ad", args[1])
	}
	if err := matchJob(slots, job); err != nil {
		return err
	}
	return runCycle(args, slots)
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintf(os.Stderr, "usage: %s SLOTS JOB CONFIG JOBS SUBMITTERS\n", os.Args[0])
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "pool_and_cycle: %v\n", err)
		os.Exit(1)
	}
}
