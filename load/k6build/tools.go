//go:build tools

// Package k6build pins the official k6 module so `go build go.k6.io/k6/v2`
// produces the exact load generator vtlab measured with.
package k6build

import _ "go.k6.io/k6/v2"
