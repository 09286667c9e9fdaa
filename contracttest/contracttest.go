// Package contracttest validates responses against the contract's JSON
// Schemas (draft 2020-12, through github.com/google/jsonschema-go, the
// validator the MCP SDK uses), copied from the contract into schemas/. Tests
// use it so that every golden file and end-to-end response is checked
// against the same definition external agents rely on.
package contracttest

import (
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// Schema names.
const (
	SearchResponse = "search-response.schema.json"
	Contract       = "contract.schema.json"
	FacadeHealth   = "facade-health.schema.json"
	Error          = "error.schema.json"
)

var (
	once     sync.Once
	compiled map[string]*jsonschema.Resolved
	loadErr  error
)

func load() {
	compiled = map[string]*jsonschema.Resolved{}
	for _, n := range []string{SearchResponse, Contract, FacadeHealth, Error} {
		b, err := schemaFiles.ReadFile("schemas/" + n)
		if err != nil {
			loadErr = err
			return
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			loadErr = fmt.Errorf("%s: %w", n, err)
			return
		}
		// The schemas name themselves by relative $id ("nova/..."); give them a
		// base so those resolve to absolute URIs.
		r, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: "https://nova.invalid/"})
		if err != nil {
			loadErr = fmt.Errorf("resolve %s: %w", n, err)
			return
		}
		compiled[n] = r
	}
}

// Validate checks body (JSON bytes) against the named schema. Facade
// search responses must also carry externalAgentContract, and unavailable
// ones a reason (the schema's x-facade-required and x-unavailable-required).
func Validate(schema string, body []byte, facade bool) error {
	once.Do(load)
	if loadErr != nil {
		return loadErr
	}
	s, ok := compiled[schema]
	if !ok {
		return fmt.Errorf("unknown schema %q", schema)
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		return err
	}
	if schema == SearchResponse {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(body, &top); err != nil {
			return err
		}
		if facade {
			if _, ok := top["externalAgentContract"]; !ok {
				return fmt.Errorf("facade search response has no externalAgentContract")
			}
		}
		if string(top["available"]) == "false" {
			var reason *string
			if err := json.Unmarshal(top["reason"], &reason); err != nil || reason == nil || *reason == "" {
				return fmt.Errorf("unavailable search response has no reason")
			}
		}
	}
	return nil
}
