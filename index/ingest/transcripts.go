package ingest

import (
	"context"
	"errors"

	"github.com/nova-recall/nova/config"
)

// readCodexFile and readClaudeCodeFile are placeholders until the agent
// transcript readers land; they report the file as unsupported.
func readCodexFile(ctx context.Context, src config.Source, path, rel string, sink Sink) error {
	return errors.New("codex reader not implemented yet")
}

func readClaudeCodeFile(ctx context.Context, src config.Source, path, rel string, sink Sink) error {
	return errors.New("claude-code reader not implemented yet")
}
