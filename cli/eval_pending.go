package cli

// runEval is replaced when novactl eval lands.
var runEval = notYet("eval")
