package com.bettercompute.bootstrap;

import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** What the sub-commands share about their command lines, read by picocli. */
public final class CommandLines {
    private CommandLines() {}

    /** A refusal of a command line in the sub-commands' words: the option, and what is wrong with it. */
    public static String refusal(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String first = unmatched.getUnmatched().get(0);
            return first.startsWith("-") ? "unknown option " + first.split("=", 2)[0] + " (see --help)"
                    : "unexpected argument '" + first + "' (see --help)";
        }
        if (e instanceof CommandLine.MissingParameterException missing && !missing.getMissing().isEmpty()
                && missing.getMissing().get(0) instanceof OptionSpec option) {
            return "option " + option.longestName() + " needs a value";
        }
        return e.getMessage();
    }
}
