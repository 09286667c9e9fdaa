package cli

import "github.com/nova-recall/nova/doctor"

// runService is replaced when novactl service lands.
var runService = notYet("service")

// newServiceProbe returns the platform's service probe; none yet.
func newServiceProbe(*Invocation) doctor.ServiceProbe { return nil }
