// Package contracttest validates responses against the contract's JSON
// Schemas (draft 2020-12), copied from the contract into schemas/. Tests
// use it so that every golden file and end-to-end response is checked
// against the same definition external agents rely on.
package contracttest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
	compiled map[string]*jsonschema.Schema
	loadErr  error
)

func load() {
	compiled = map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	names := []string{SearchResponse, Contract, FacadeHealth, Error}
	for _, n := range names {
		b, err := schemaFiles.ReadFile("schemas/" + n)
		if err != nil {
			loadErr = err
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			loadErr = fmt.Errorf("%s: %w", n, err)
			return
		}
		if err := c.AddResource("nova/"+n, doc); err != nil {
			loadErr = err
			return
		}
	}
	for _, n := range names {
		s, err := c.Compile("nova/" + n)
		if err != nil {
			loadErr = fmt.Errorf("compile %s: %w", n, err)
			return
		}
		compiled[n] = s
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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
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
