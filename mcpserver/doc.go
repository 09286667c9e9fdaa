// Package mcpserver serves Nova's read-only memory tools over the Model
// Context Protocol, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Two tools, both annotated read-only, non-destructive, idempotent and
// closed-world:
//
//   - memory_search sends the query to novad's facade search endpoint
//     through package client, so the facade's loopback boundary, latency
//     budget and read-only rules apply exactly as they do to any other
//     agent, and returns the citation pack, the quality verdict and the
//     trimmed results as text and as structured content;
//   - memory_status reports the facade's health and the index statistics.
//
// When novad is not running, a tool result says so in words an agent can
// relay; the MCP session itself never fails because of it. Invalid tool
// arguments are answered with a tool result marked isError that says what
// to correct, so the model sees it; an unknown tool or a malformed request
// is a JSON-RPC error. On stdio
// the server writes nothing but protocol messages to its output, and a
// malformed input line is answered with a JSON-RPC error instead of
// ending the session (see Serve).
package mcpserver
