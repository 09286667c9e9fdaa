package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// NotifyContext returns a copy of parent that is cancelled at the first
// SIGINT or SIGTERM, so that a command stops cleanly and says what it
// left, and a stop function that releases the signals. A second signal
// calls exit with the conventional status (128 plus the signal's number:
// 130 for SIGINT, 143 for SIGTERM): a command stuck in a system call that
// no context reaches (an open of a named pipe no one writes) could not be
// stopped by either signal otherwise, as novactl catches both.
func NotifyContext(parent context.Context, exit func(code int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			exit(signalStatus(s))
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}

// signalStatus is the exit status of a process ended by s, as shells
// report it: 128 plus its number.
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}
