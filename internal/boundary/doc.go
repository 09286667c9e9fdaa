// Package boundary holds the repository's import-boundary tests: what the
// shipped binaries may link, and where the storage packages may touch the
// wire package api. It has no code of its own.
package boundary
