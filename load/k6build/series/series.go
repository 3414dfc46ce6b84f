// Package series is the k6 output vtlab keeps each row's raw series with (`--out vtlab=FILE.csv.gz`):
// one line per HTTP request — when it ended, how long it took, its status, the phase and half of the
// hold it started in, and a request mix's entry where it has one — plus k6's active VUs each second and
// every dropped iteration. From these the harness computes the row's aggregates and any other window's,
// per second or over a re-cut hold, exactly as k6's summary does (same values, same percentile rule).
//
// k6's own CSV output writes some fourteen samples per request with every tag; at ~1,700 req/s on two
// shared cores that is CPU the service would have had. This keeps the few fields vtlab reads.
//
// `--out vtlab=-` writes the same lines, uncompressed, to standard output: a k6-operator runner's pod has no
// file vtlab can fetch after it ends, but its log streams (`kubectl logs -f`), and no k6 log line starts as
// these do.
//
// Beside it, when VTLAB_LIVE_FILE names a file, a line a second — Unix milliseconds, the requests
// that succeeded and failed so far, the hold's iterations still running, every iteration still running — is
// what the harness reads live: when the row has settled (and its hold may begin), when the hold's last request
// has ended (and the row may end), and when no request is left in flight (and k6 may stop).
package series

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"

	"vtlab/k6build/hold"
)

func init() {
	output.RegisterExtension("vtlab", New)
}

// Output writes the series file; samples are buffered by k6's SampleBuffer and written once a second.
type Output struct {
	output.SampleBuffer

	path    string
	file    *os.File // nil when writing to standard output
	gz      *gzip.Writer
	out     *bufio.Writer
	flusher *output.PeriodicFlusher
	start   time.Time
	mu      sync.Mutex

	live       *os.File // the live counts (VTLAB_LIVE_FILE), or nil
	ok, failed int64
}

// New reads the file name from `--out vtlab=FILE`.
func New(params output.Params) (output.Output, error) {
	if params.ConfigArgument == "" {
		return nil, fmt.Errorf("vtlab output: a file is required (--out vtlab=FILE.csv.gz)")
	}
	return &Output{path: params.ConfigArgument}, nil
}

// Description is what k6 prints for this output.
func (o *Output) Description() string { return "vtlab series (" + o.path + ")" }

// Start opens the file; times in it are milliseconds since this moment, which precedes the test's start
// by the few milliseconds k6 takes to begin executing (the header records it as Unix time too).
func (o *Output) Start() error {
	if o.path == "-" {
		o.out = bufio.NewWriterSize(os.Stdout, 1<<16)
	} else {
		file, err := os.Create(o.path)
		if err != nil {
			return err
		}
		o.file, o.gz = file, gzip.NewWriter(file)
		o.out = bufio.NewWriterSize(o.gz, 1<<16)
	}
	if path := os.Getenv("VTLAB_LIVE_FILE"); path != "" {
		live, err := os.Create(path)
		if err != nil {
			return err
		}
		o.live = live
	}
	o.start = time.Now()
	fmt.Fprintf(o.out, "# vtlab series v1 start_unix_ms=%d\n", o.start.UnixMilli())
	fmt.Fprintln(o.out, "# r,end_ms,duration_ms,status,phase,half,expected[,entry] | v,t_ms,vus | d,t_ms,scenario,count")
	var err error
	o.flusher, err = output.NewPeriodicFlusher(time.Second, o.flush)
	return err
}

// Stop writes what is left and closes the file.
func (o *Output) Stop() error {
	o.flusher.Stop()
	o.flush()
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.out.Flush(); err != nil {
		return err
	}
	if o.live != nil {
		o.live.Close()
	}
	if o.file == nil {
		return nil
	}
	if err := o.gz.Close(); err != nil {
		return err
	}
	return o.file.Close()
}

func (o *Output) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, container := range o.GetBufferedSamples() {
		for _, sample := range container.GetSamples() {
			o.write(sample)
		}
	}
	if o.file == nil {
		o.out.Flush() // a log is read as it grows: each second's lines reach it that second
	}
	if o.live != nil {
		// one unbuffered write a second: the harness never reads half a line
		fmt.Fprintf(o.live, "%d,%d,%d,%d,%d\n", time.Now().UnixMilli(), o.ok, o.failed, hold.InFlight(),
			hold.Running())
	}
}

func (o *Output) write(sample metrics.Sample) {
	at := strconv.FormatFloat(float64(sample.Time.Sub(o.start).Microseconds())/1000, 'f', 3, 64)
	switch sample.Metric.Name {
	case "http_req_duration":
		status, _ := sample.Tags.Get("status")
		phase, _ := sample.Tags.Get("phase")
		half, _ := sample.Tags.Get("half")
		expected, _ := sample.Tags.Get("expected_response")
		if expected == "true" {
			o.ok++
		} else {
			o.failed++
		}
		// the value as k6's summary holds it: the shortest text that reads back as the same float64
		fmt.Fprintf(o.out, "r,%s,%s,%s,%s,%s,%s", at, strconv.FormatFloat(sample.Value, 'g', -1, 64),
			status, phase, half, expected)
		// a request mix's entry (load/mix.js tags it; its name holds no comma): a field more, where there is one
		if entry, tagged := sample.Tags.Get("entry"); tagged {
			fmt.Fprintf(o.out, ",%s", entry)
		}
		o.out.WriteByte('\n')
	case "vus":
		fmt.Fprintf(o.out, "v,%s,%d\n", at, int64(sample.Value))
	case "dropped_iterations":
		scenario, _ := sample.Tags.Get("scenario")
		fmt.Fprintf(o.out, "d,%s,%s,%d\n", at, scenario, int64(sample.Value))
	}
}
