package com.bettercompute.domain.input;

/** One bad field of an input: its path ({@code nodePools[0].name}; empty for the body itself) and why. */
public record FieldProblem(String field, String problem) {}
