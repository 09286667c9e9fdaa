package index

import (
	"path/filepath"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// OpenActive reads home's manifest and opens the generation it names,
// verifying every file against the manifest's sums: the generation novad
// would serve. It returns manifest.ErrNoManifest when nothing is promoted.
func OpenActive(home paths.Home, analyzer *lexical.Analyzer) (*manifest.Manifest, *generation.Generation, error) {
	m, _, err := manifest.Read(home.Manifest())
	if err != nil {
		return nil, nil, err
	}
	g, err := generation.Open(filepath.Join(home.IndexDir(), m.GenerationPath), m.RunID, m.Files, analyzer)
	if err != nil {
		return nil, nil, err
	}
	return m, g, nil
}
