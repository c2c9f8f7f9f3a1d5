package com.bettercompute.application.archfixture;

/** Breaks "application depends on no adapter library" on purpose, for ArchitectureTest. Test code only. */
public class ApplicationUsingJavalin {
    io.javalin.Javalin app;
}
