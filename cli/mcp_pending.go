package cli

// runMCP is replaced when novactl mcp lands.
var runMCP = notYet("mcp")
