// Package release reads Nova's release configuration (.goreleaser.yaml,
// the part of it Nova's promises rest on) and says what a release built
// from it must contain: which archives, which files in each, which
// Homebrew formulae. Its tests hold the configuration, and what make dist
// produced from it, to those promises; goreleaser itself is not needed.
package release

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Config is the subset of a goreleaser v2 configuration that Nova's
// release depends on. Other keys are ignored here (goreleaser checks them).
type Config struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds   []Build   `yaml:"builds"`
	Archives []Archive `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Brews []Brew `yaml:"brews"`
}

// Build is one binary built for several platforms.
type Build struct {
	ID      string   `yaml:"id"`
	Binary  string   `yaml:"binary"`
	Main    string   `yaml:"main"`
	Goos    []string `yaml:"goos"`
	Goarch  []string `yaml:"goarch"`
	Ldflags []string `yaml:"ldflags"`
}

// Archive is one archive per platform, holding the builds named by IDs and
// Files.
type Archive struct {
	ID              string   `yaml:"id"`
	IDs             []string `yaml:"ids"`
	Formats         []string `yaml:"formats"`
	NameTemplate    string   `yaml:"name_template"`
	WrapInDirectory bool     `yaml:"wrap_in_directory"`
	Files           []string `yaml:"files"`
}

// Brew is one Homebrew formula of the tap. The Ruby fields are the lines
// goreleaser copies into the formula.
type Brew struct {
	Name         string   `yaml:"name"`
	IDs          []string `yaml:"ids"`
	Install      string   `yaml:"install"`
	Service      string   `yaml:"service"`
	Caveats      string   `yaml:"caveats"`
	Test         string   `yaml:"test"`
	Dependencies []struct {
		Name string `yaml:"name"`
	} `yaml:"dependencies"`
}

// Platform is one os/arch pair a release ships for.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// Load reads the configuration at path.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// Build returns the build with id, if any.
func (c *Config) Build(id string) (Build, bool) {
	i := slices.IndexFunc(c.Builds, func(b Build) bool { return b.ID == id })
	if i < 0 {
		return Build{}, false
	}
	return c.Builds[i], true
}

// Brew returns the formula named name, if any.
func (c *Config) Brew(name string) (Brew, bool) {
	i := slices.IndexFunc(c.Brews, func(b Brew) bool { return b.Name == name })
	if i < 0 {
		return Brew{}, false
	}
	return c.Brews[i], true
}

// Platforms are the os/arch pairs every build of archive a covers, sorted.
func (c *Config) Platforms(a Archive) []Platform {
	var out []Platform
	for i, id := range a.IDs {
		b, _ := c.Build(id)
		var ps []Platform
		for _, goos := range b.Goos {
			for _, arch := range b.Goarch {
				ps = append(ps, Platform{goos, arch})
			}
		}
		if i == 0 {
			out = ps
			continue
		}
		// An archive holds all its builds only where all of them exist.
		out = slices.DeleteFunc(out, func(p Platform) bool { return !slices.Contains(ps, p) })
	}
	slices.SortFunc(out, func(a, b Platform) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ArchiveName renders a's name template for one platform and version.
// It knows the template fields Nova's configuration uses and refuses others.
func (c *Config) ArchiveName(a Archive, p Platform, version string) (string, error) {
	r := strings.NewReplacer("{{ .ProjectName }}", c.ProjectName, "{{ .Version }}", version, "{{ .Os }}", p.OS, "{{ .Arch }}", p.Arch)
	name := r.Replace(a.NameTemplate)
	if strings.Contains(name, "{{") {
		return "", fmt.Errorf("archive %s: name template %q uses fields this package does not render", a.ID, a.NameTemplate)
	}
	return name, nil
}

// ArchiveContents lists the paths inside one archive of a (under its
// wrapping directory when it has one): the binaries of its builds and the
// extra files, with each glob expanded by expand (which lists the files a
// glob matches when the release is built).
func (c *Config) ArchiveContents(a Archive, name string, expand func(glob string) ([]string, error)) ([]string, error) {
	var out []string
	for _, id := range a.IDs {
		b, ok := c.Build(id)
		if !ok {
			return nil, fmt.Errorf("archive %s: no build %q", a.ID, id)
		}
		out = append(out, b.Binary)
	}
	for _, f := range a.Files {
		if !strings.ContainsAny(f, "*?[") {
			out = append(out, f)
			continue
		}
		matches, err := expand(f)
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("archive %s: %q matches nothing", a.ID, f)
		}
		out = append(out, matches...)
	}
	if a.WrapInDirectory {
		for i := range out {
			out[i] = name + "/" + out[i]
		}
	}
	slices.Sort(out)
	return out, nil
}

// Lines are the non-empty, trimmed lines of a Ruby field.
func Lines(ruby string) []string {
	var out []string
	for l := range strings.SplitSeq(ruby, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
