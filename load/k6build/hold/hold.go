// Package hold is the k6 module `k6/x/vtlab`: when the hold of a row begins, as the harness decides it
// from the live series (a warm-up that ends when the row has settled, not after a fixed time), how many of
// the hold's iterations are still running, and when the harness ends the row — so that k6 is stopped only
// once the last request of the hold, and then the last request of any iteration, has ended.
//
// The harness writes the hold's start, in Unix milliseconds, to the file named by VTLAB_HOLD_FILE; once the
// hold is over and its last iteration ended it writes the file again with the moment it ends the row on a
// second line. Every VU reads both from memory (a watcher polls the file). From that moment no iteration
// makes a request: the harness waits until none still runs (k6 interrupts a request in flight when it is
// stopped: a write the service stored would go unacknowledged), then stops k6. Without VTLAB_HOLD_FILE (a
// fixed warm-up, a cluster's runners) both stay unknown and the load script counts its phases from its own
// fixed times.
package hold

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/v2/js/modules"
)

// how often the watcher looks for the harness's file: the hold begins within this of the harness's decision
const pollEvery = 50 * time.Millisecond

var (
	watchOnce sync.Once
	startMs   atomic.Int64 // the hold's start in Unix ms; 0 while unknown
	stopMs    atomic.Int64 // when the harness ends the row, in Unix ms; 0 while it has not
	inFlight  atomic.Int64 // iterations that began in the hold and have not ended
	running   atomic.Int64 // iterations of any phase that have not ended
)

func init() {
	modules.Register("k6/x/vtlab", new(module))
}

type module struct{}

type instance struct {
	vu modules.VU
}

// NewModuleInstance is called once per VU; the one watcher starts with the first.
func (*module) NewModuleInstance(vu modules.VU) modules.Instance {
	watchOnce.Do(watch)
	return &instance{vu: vu}
}

// Exports: holdStartUnixMs() (-1 while unknown), stopping() (whether the harness is ending the row), and
// enter(inHold) and leave(inHold) around every iteration. Each is a native JS function (it takes the call as it
// is): a plain Go function would be called through reflection, four times in every iteration.
func (i *instance) Exports() modules.Exports {
	rt := i.vu.Runtime()
	return modules.Exports{Named: map[string]any{
		"holdStartUnixMs": func(sobek.FunctionCall) sobek.Value { return rt.ToValue(HoldStartUnixMs()) },
		"stopping":        func(sobek.FunctionCall) sobek.Value { return rt.ToValue(stopMs.Load() > 0) },
		"enter": func(call sobek.FunctionCall) sobek.Value {
			running.Add(1)
			if call.Argument(0).ToBoolean() {
				inFlight.Add(1)
			}
			return sobek.Undefined()
		},
		"leave": func(call sobek.FunctionCall) sobek.Value {
			running.Add(-1)
			if call.Argument(0).ToBoolean() {
				inFlight.Add(-1)
			}
			return sobek.Undefined()
		},
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

// Running is how many iterations of any phase are still running.
func Running() int64 { return running.Load() }

func watch() {
	path := os.Getenv("VTLAB_HOLD_FILE")
	if path == "" {
		return
	}
	go func() {
		for stopMs.Load() == 0 {
			if text, err := os.ReadFile(path); err == nil {
				// the harness renames a complete file into place: a partial number is never read
				lines := strings.Fields(string(text))
				if len(lines) > 0 {
					if ms, err := strconv.ParseInt(lines[0], 10, 64); err == nil && ms > 0 {
						startMs.Store(ms)
					}
				}
				if len(lines) > 1 {
					if ms, err := strconv.ParseInt(lines[1], 10, 64); err == nil && ms > 0 {
						stopMs.Store(ms)
					}
				}
			}
			time.Sleep(pollEvery)
		}
	}()
}
