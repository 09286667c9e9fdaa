package bench

// The FTS5 baseline's driver: cmd/novactl registers it in the binary.
import _ "modernc.org/sqlite"
