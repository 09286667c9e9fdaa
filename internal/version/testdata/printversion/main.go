// Command printversion prints the build identity, for version_test.go to
// check that -ldflags -X reaches the variables.
package main

import (
	"fmt"

	"github.com/nova-recall/nova/internal/version"
)

func main() { fmt.Println(version.Get().Line("printversion")) }
