//go:build tools

// Package toxiproxybuild pins the official Toxiproxy module so
// `go build github.com/Shopify/toxiproxy/v2/cmd/server` produces the exact
// latency proxy vtlab puts between its tiers.
package toxiproxybuild

import _ "github.com/Shopify/toxiproxy/v2/cmd/server"
