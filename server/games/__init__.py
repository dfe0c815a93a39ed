"""Games: the store functions (`store`), their emails (`notify`) and public JSON (`public`)."""
