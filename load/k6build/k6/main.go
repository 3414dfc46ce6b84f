// Command k6 is the official k6 with vtlab's series output compiled in — the way xk6 builds an
// extended k6 (the official module's main, plus an import that registers the extension).
package main

import (
	"go.k6.io/k6/v2/cmd"

	_ "vtlab/k6build/hold"
	_ "vtlab/k6build/series"
)

func main() {
	cmd.Execute()
}
