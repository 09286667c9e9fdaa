package doctor

import "runtime"

// goos is the platform doctor gives advice for by default.
var goos = runtime.GOOS
