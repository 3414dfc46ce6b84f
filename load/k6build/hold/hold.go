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
//
// Turns (a paired plan's blocks, VTLAB_TURN_FILE): one k6 per arm keeps its users and their connections for a
// whole point, and the arms take turns. The harness writes the turn's id (its start in Unix ms) to the file while
// this k6's users may go and 0 while they wait; awaitTurn, called before every iteration, blocks a user until its
// arm's turn, and at the first iteration of each turn first waits a random share of the spread the harness names,
// so that the users' requests are spread over one request's wait as a ramp spreads them (all at once, every user
// would keep the phase of the one moment). k6 v2's own pause (the REST API's) no longer stops any executor once
// it has started: the externally-controlled executor it served is gone.
package hold

import (
	"math/rand/v2"
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

// how often a runner looks for its arm's turn: a turn begins and ends within this of the harness's word
const turnPoll = 20 * time.Millisecond

var (
	watchOnce sync.Once
	startMs   atomic.Int64 // the hold's start in Unix ms; 0 while unknown
	stopMs    atomic.Int64 // when the harness ends the row, in Unix ms; 0 while it has not
	inFlight  atomic.Int64 // iterations that began in the hold and have not ended
	running   atomic.Int64 // iterations of any phase that have not ended
	turnOnce  sync.Once
	turnID    atomic.Int64                  // the running turn's id (Unix ms of its start) while this k6's users may go; 0: they wait
	gate      atomic.Pointer[chan struct{}] // closed while a turn runs: what waiting users sleep on
	// VTLAB_TURN_FILE was given: set once, before any VU's first iteration (NewModuleInstance)
	takesTurns bool
)

func init() {
	modules.Register("k6/x/vtlab", new(module))
}

type module struct{}

type instance struct {
	vu       modules.VU
	lastTurn int64 // the turn this VU last began an iteration in (awaitTurn)
}

// NewModuleInstance is called once per VU; the one watcher starts with the first.
func (*module) NewModuleInstance(vu modules.VU) modules.Instance {
	watchOnce.Do(watch)
	turnOnce.Do(watchTurns)
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
		"awaitTurn": func(call sobek.FunctionCall) sobek.Value {
			return rt.ToValue(i.awaitTurn(time.Duration(call.Argument(0).ToInteger()) * time.Millisecond))
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

// awaitTurn returns true once this k6's arm has the turn, at a turn's first iteration after a random share of
// `spread`; at once without a turn file. A turn that ends during the spread is waited out again: no request is sent
// outside one. k6 stopping the VU ends the wait, and false says the iteration sends nothing. A waiting user costs
// nothing: it sleeps on the gate.
func (i *instance) awaitTurn(spread time.Duration) bool {
	if !takesTurns {
		return true
	}
	done := i.vu.Context().Done()
	for {
		id := turnID.Load()
		if id == 0 {
			open := *gate.Load()
			if turnID.Load() == 0 {
				select {
				case <-done:
					return false
				case <-open:
				}
			}
			continue
		}
		if id == i.lastTurn {
			return true
		}
		i.lastTurn = id
		if spread > 0 {
			select {
			case <-done:
				return false
			case <-time.After(rand.N(spread)):
			}
		}
		if turnID.Load() == id {
			return true
		}
	}
}

// watchTurns follows the harness's turn file: a turn's id opens the gate (closing its channel wakes every waiting
// user), 0 shuts it (a new channel first, then the id: a user that reads 0 waits on a gate not yet opened).
func watchTurns() {
	path := os.Getenv("VTLAB_TURN_FILE")
	if path == "" {
		return
	}
	takesTurns = true
	shut := make(chan struct{})
	gate.Store(&shut)
	go func() {
		for {
			// the harness renames a complete file into place: a partial number is never read
			if text, err := os.ReadFile(path); err == nil {
				if fields := strings.Fields(string(text)); len(fields) > 0 {
					if id, err := strconv.ParseInt(fields[0], 10, 64); err == nil && id >= 0 {
						turn(id)
					}
				}
			}
			time.Sleep(turnPoll)
		}
	}()
}

func turn(id int64) {
	was := turnID.Load()
	switch {
	case id == was:
	case id == 0:
		shut := make(chan struct{})
		gate.Store(&shut)
		turnID.Store(0)
	case was == 0:
		turnID.Store(id)
		close(*gate.Load())
	default: // one turn straight after another: the gate is open already
		turnID.Store(id)
	}
}
