package com.bettercompute.bootstrap.catalog;

/** A catalog file that cannot be loaded: the line and what is wrong there. */
public final class CatalogException extends RuntimeException {
    private final int line;

    public CatalogException(int line, String problem) {
        super("line " + line + ": " + problem);
        this.line = line;
    }

    public int line() {
        return line;
    }
}
