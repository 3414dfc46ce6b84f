// Package hold is the k6 module `k6/x/vtlab`: when the hold of a row begins, as the harness decides it
// from the live series (a warm-up that ends when the row has settled, not after a fixed time), and how
// many of the hold's iterations are still running, so that the harness ends k6 only after the last of them.
//
// The harness writes the hold's start, in Unix milliseconds, to the file named by VTLAB_HOLD_FILE, once;
// every VU reads it from memory (a watcher polls the file until it appears). Without VTLAB_HOLD_FILE (a
// fixed warm-up, a cluster's runners) the start stays unknown and the load script counts its phases from
// its own fixed times.
package hold

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.k6.io/k6/v2/js/modules"
)

// how often the watcher looks for the harness's file: the hold begins within this of the harness's decision
const pollEvery = 50 * time.Millisecond

var (
	watchOnce sync.Once
	startMs   atomic.Int64 // the hold's start in Unix ms; 0 while unknown
	inFlight  atomic.Int64 // iterations that began in the hold and have not ended
)

func init() {
	modules.Register("k6/x/vtlab", new(module))
}

type module struct{}

type instance struct{}

// NewModuleInstance is called once per VU; the one watcher starts with the first.
func (*module) NewModuleInstance(_ modules.VU) modules.Instance {
	watchOnce.Do(watch)
	return &instance{}
}

// Exports: holdStartUnixMs() (-1 while unknown), enterHold() and leaveHold() around an iteration of the hold.
func (*instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"holdStartUnixMs": HoldStartUnixMs,
		"enterHold":       func() { inFlight.Add(1) },
		"leaveHold":       func() { inFlight.Add(-1) },
	}}
}

// HoldStartUnixMs is the hold's start the harness decided, or -1 while it has not.
func HoldStartUnixMs() int64 {
	if ms := startMs.Load(); ms > 0 {
		return ms
	}
	return -1
}

// InFlight is how many iterations that began in the hold are still running.
func InFlight() int64 { return inFlight.Load() }

func watch() {
	path := os.Getenv("VTLAB_HOLD_FILE")
	if path == "" {
		return
	}
	go func() {
		for {
			if text, err := os.ReadFile(path); err == nil {
				// the harness renames a complete file into place: a partial number is never read
				if ms, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64); err == nil && ms > 0 {
					startMs.Store(ms)
					return
				}
			}
			time.Sleep(pollEvery)
		}
	}()
}
