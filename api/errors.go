package api

import (
	"errors"
	"fmt"
)

// ErrNotRunning is matched (errors.Is) by the errors of a call to novad
// that nothing answered: novad is not running, or runs on other ports.
// Package client's NotRunningError matches it unless something else
// answers there; the TUI and the CLI say how to start novad on it.
var ErrNotRunning = errors.New("novad is not running")

// Error codes and reasons fixed by the contract.
const (
	CodeReadOnly             = "rag-external-api-read-only"
	CodeNonLoopback          = "rag-server-non-loopback"
	CodeAuthRequired         = "rag-internal-authorization-required"
	CodeAuthUnavailable      = "rag-internal-authorization-unavailable"
	CodeHostNotAllowed       = "host-not-allowed"
	CodeBrowserRefused       = "browser-request-refused"
	CodeProxyRefused         = "proxy-request-refused"
	CodeUnsupportedMediaType = "unsupported-media-type"
	CodeBodyTooLarge         = "request-too-large"
	CodeBadRequest           = "bad-request"
	CodeInvalidField         = "invalid-field"
	CodeNotFound             = "not-found"
	CodeMethodNotAllowed     = "method-not-allowed"
	CodeInternal             = "internal-error"
	CodeEncoderUnavailable   = "encoder-unavailable"
	ReasonQueryRequired      = "query is required"
	ReasonCapacityExhausted  = "search-capacity-exhausted"
	ReasonTimeout            = "search-timeout"
	ReasonCancelled          = "search-cancelled"
	ReasonBudgetExhausted    = "rag-search-budget-exhausted"
	ReasonIndexNotLoaded     = "active-v2-index-not-loaded"
	ReasonIndexLoading       = "index-loading"
	ReasonProfileMismatch    = "embedding-profile-mismatch"
	ReasonDimensionMismatch  = "dimension-mismatch"
	ReasonInvalidRequest     = "invalid-request"
	ReasonInternal           = "internal-error"
	ReasonCLIBudgetExhausted = "rag-external-budget-exhausted"
	ReasonCLIUnavailable     = "rag-external-unavailable"
	// ReasonCLIOtherHome: no novad serves this home, and something else
	// (another home's novad) answers on its ports; nothing was sent to it.
	ReasonCLIOtherHome        = ReasonCLIUnavailable + ":other-home"
	ReasonCLIInvalidJSON      = "rag-external-invalid-json"
	ReasonCLIInvalidSchema    = "rag-external-invalid-schema"
	ReasonCLIInvalidEncoding  = "rag-external-invalid-encoding"
	ReasonCLIHTTPPrefix       = "rag-external-http-"
	MessageReadOnlyFacade     = "External RAG agent API is read-only; settings, server, index, memory and source mutations are not allowed."
	MessageReadOnlyDirect     = "External RAG API is read-only; memory writes and index mutations are not allowed."
	MessageNonLoopbackClient  = "nova-RAG direct server accepts loopback clients only."
	MessageAuthRequired       = "The internal nova-RAG encode endpoint requires the managed Runtime token."
	MessageAuthUnavailable    = "The internal encode token file is missing or unsafe, so /encode is disabled."
	MessageHostNotAllowed     = "Host header is not localhost or the address this server listens on, with its port."
	MessageBrowserRefused     = "Browser requests (Origin, Referer or Sec-Fetch-* headers) are refused: a web page must never read memory."
	MessageProxyRefused       = "Requests relayed through a proxy or tunnel are refused."
	MessageUnsupportedMedia   = "POST bodies must be application/json."
	MessageBodyTooLarge       = "Request body is too large."
	MessageInternal           = "Internal error."
	MessageNotFound           = "No such endpoint."
	MessageMethodNotAllowed   = "Method not allowed on this endpoint."
	MessageEncoderUnavailable = "The embedding provider is not available."
)

// Error is the flat error body of every response that is not a search
// envelope: {"error": code, "message": text}. Status is the HTTP status; it
// is not serialised.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"error"`
	Message string `json:"message"`
	// Contract is attached to facade refusals so an agent that hits one
	// learns the boundary from the same response.
	Contract *Contract `json:"externalAgentContract,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// NewError returns an *Error.
func NewError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}
