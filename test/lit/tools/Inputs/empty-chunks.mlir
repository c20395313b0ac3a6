// -----

// -----
// a comment
