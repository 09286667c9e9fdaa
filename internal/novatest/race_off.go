//go:build !race

package novatest

const raceEnabled = false
