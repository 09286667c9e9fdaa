package cli

// runTUI is replaced when novactl tui lands.
var runTUI = notYet("tui")
