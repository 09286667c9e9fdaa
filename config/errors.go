package config

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid configuration")

// FieldError is a configuration error addressed to one field.
type FieldError struct {
	// Field is the dotted key, e.g. "server.host" or "sources[1].kind".
	Field string
	// Env is the environment variable the value came from, if it did
	// (e.g. NOVA_RETRIEVAL_TOP_K).
	Env string
	// Value is the offending value, formatted.
	Value string
	// Reason says what is wrong and what is accepted.
	Reason string
	// Line is the line of config.yaml the field is on, or 0 (set by an
	// environment variable, or not found in the file).
	Line int
	// File is the config file the value is from, or would be written in
	// (a default judged against a value of the file); "" for a value of
	// an environment variable, or when there is no file.
	File string
}

func (e *FieldError) Error() string {
	return where(e.File, e.Line, e.Env, e.Field) + ": " + e.message()
}

// where is the start of an error about field: "PATH: line N: field", or
// "ENV (field)" when the value came from the variable env, or "ENV" when
// the variable is the field (one that sets no key).
func where(file string, line int, env, field string) string {
	switch {
	case env != "" && env == field:
		return env
	case env != "":
		return env + " (" + field + ")"
	}
	if line > 0 {
		field = fmt.Sprintf("line %d: %s", line, field)
	}
	if file != "" {
		field = file + ": " + field
	}
	return field
}

// message is the error without the field: the reason and the value.
func (e *FieldError) message() string {
	if e.Value != "" {
		return fmt.Sprintf("%s (got %q)", e.Reason, e.Value)
	}
	return e.Reason
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// NonLoopbackError is returned when server.host is not loopback. It is
// distinct so that novad and doctor can report rag-server-non-loopback.
type NonLoopbackError struct {
	Host string
	// Env is the environment variable the host came from, if it did.
	Env string
	// Line is the line of config.yaml server.host is on, or 0.
	Line int
	// File is the config file the host is from, as in FieldError.
	File string
}

func (e *NonLoopbackError) Error() string {
	return where(e.File, e.Line, e.Env, "server.host") + ": " + e.message()
}

// message is the error without the field.
func (e *NonLoopbackError) message() string {
	if h := strings.TrimSpace(e.Host); h != e.Host && IsLoopbackHost(h) {
		// Loopback but for a space, which the quoted value hardly
		// shows: say so, not that it is not loopback.
		return fmt.Sprintf("must be localhost or a numeric loopback address (got %q): remove the spaces around it (rag-server-non-loopback)", e.Host)
	}
	return fmt.Sprintf("must be localhost or a numeric loopback address (got %q): non-loopback serving is refused (rag-server-non-loopback)", e.Host)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *NonLoopbackError) Unwrap() error { return ErrInvalid }

// Problem is one configuration error as a program reads it (novactl
// config check --json).
type Problem struct {
	// Field is the dotted key, or "" for an error about the whole file.
	Field string `json:"field,omitempty"`
	// Env is the environment variable the value came from, if it did.
	Env string `json:"env,omitempty"`
	// File is the config file the value is from, when it is from one.
	File string `json:"file,omitempty"`
	// Line is the line of config.yaml the field is on, when it is there.
	Line int `json:"line,omitempty"`
	// Message says what is wrong, without the field.
	Message string `json:"message"`
}

// Where says where the problem's value was set, as its error does:
// "PATH: line N: field", "ENV (field)", or "" for an error about the
// whole file, whose Message says it all.
func (p Problem) Where() string {
	if p.Field == "" {
		return ""
	}
	return where(p.File, p.Line, p.Env, p.Field)
}

// Problems lists the errors in err, as returned by Load or LoadFile, one
// Problem for each.
func Problems(err error) []Problem {
	var out []Problem
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case nil:
		case *FieldError:
			out = append(out, Problem{Field: e.Field, Env: e.Env, File: e.File, Line: e.Line, Message: e.message()})
		case *NonLoopbackError:
			out = append(out, Problem{Field: "server.host", Env: e.Env, File: e.File, Line: e.Line, Message: e.message()})
		case interface{ Unwrap() []error }: // errors.Join
			for _, x := range e.Unwrap() {
				walk(x)
			}
		default:
			out = append(out, Problem{Message: e.Error()})
		}
	}
	walk(err)
	return out
}
