package cli

// runBench is replaced when novactl bench lands.
var runBench = notYet("bench")
