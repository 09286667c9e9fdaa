package cli

// runSkill is replaced when novactl skill lands.
var runSkill = notYet("skill")
