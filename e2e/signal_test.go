package e2e

import "syscall"

var syscallHUP = syscall.SIGHUP
