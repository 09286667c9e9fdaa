package ingest_test

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestSync_htmlNoteExportSecrets: a password in a Keep note's lines and
// checklist, and in a Notion page's property (now a "Password: ..."
// line, as the Markdown export writes it), is in no file of the built
// home, as it is not of a Markdown note's. The property was a one-row
// table whose header cells were the name and the password, indexed
// whole.
func TestSync_htmlNoteExportSecrets(t *testing.T) {
	keep := `<html><body><div class="note DEFAULT"><div class="heading">Jan 5, 2024, 10:22:13 AM</div><div class="title">Cabin</div>` +
		`<div class="content">Wifi password: Tr0ub4dor3x<br/>Gate at the back</div>` +
		`<div class="content"><ul class="list"><li class="listitem"><span class="bullet">&#9744;</span><span class="text">db password: Pg8Rt2Wq5Zx</span></li></ul></div></div></body></html>`
	notion := `<html><body><article class="page sans"><header><h1 class="page-title">Staging</h1><table class="properties"><tbody>` +
		`<tr class="property-row property-row-text"><th>Password</th><td>Nx7Pw2Lm9q</td></tr></tbody></table></header>` +
		`<div class="page-body"><p>Grafana runs on the staging host.</p></div></article></body></html>`
	home := syncedFiles(t, config.Source{Kind: config.KindMarkdown, Include: []string{"*.md", "*.html"}}, map[string]string{
		"Keep/Cabin.html": keep, "Staging 0123456789abcdef0123456789abcdef.html": notion})
	all := ""
	for path, content := range home {
		for _, secret := range []string{"Tr0ub4dor3x", "Pg8Rt2Wq5Zx", "Nx7Pw2Lm9q"} {
			if strings.Contains(content, secret) {
				t.Errorf("%s holds %q", path, secret)
			}
		}
		all += content
	}
	for _, word := range []string{"Gate at the back", "Grafana runs"} {
		if !strings.Contains(all, word) {
			t.Errorf("no file of the home holds %q: the test proves nothing", word)
		}
	}
}
