package com.bettercompute.bootstrap;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Command-line options of a sub-command: {@code --name value} or {@code --name=value}, each also read
 * from the environment as {@code BC_NAME} (upper case, dashes as underscores). The command line wins.
 * An option the sub-command does not know stops the start with a message.
 */
public final class Options {
    /** One option a sub-command takes: its name, its default (null: none) and what it does. */
    public record Spec(String name, String defaultValue, String help) {}

    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<String> positional;
    private final boolean help;

    private Options(Map<String, String> values, List<String> positional, boolean help) {
        this.values.putAll(values);
        this.positional = positional;
        this.help = help;
    }

    public static Options parse(String[] args, List<Spec> specs, Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Spec s : specs) {
            String fromEnv = env.get("BC_" + s.name().toUpperCase().replace('-', '_'));
            if (fromEnv != null) {
                values.put(s.name(), fromEnv);
            } else if (s.defaultValue() != null) {
                values.put(s.name(), s.defaultValue());
            }
        }
        List<String> positional = new java.util.ArrayList<>();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                positional.add(arg);
                continue;
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            String known = name;
            if (specs.stream().noneMatch(s -> s.name().equals(known))) {
                throw new IllegalArgumentException("unknown option --" + name + " (see --help)");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option --" + name + " needs a value");
                }
                value = args[++i];
            }
            values.put(name, value);
        }
        return new Options(values, List.copyOf(positional), help);
    }

    public boolean help() {
        return help;
    }

    public List<String> positional() {
        return positional;
    }

    public Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name)).filter(v -> !v.isEmpty());
    }

    public int integer(String name, int min, int max) {
        String v = get(name).orElseThrow(() -> new IllegalArgumentException("option --" + name + " needs a value"));
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException("option --" + name + " must be from " + min + " to " + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option --" + name + " must be a whole number, not '" + v + "'");
        }
    }

    public static String usage(String command, String what, List<Spec> specs) {
        StringBuilder s = new StringBuilder("usage: java -jar better-compute.jar " + command + " [options]\n" + what + "\n\noptions (each also an environment variable BC_<NAME>):\n");
        for (Spec spec : specs) {
            s.append(String.format("  --%-32s %s%s%n", spec.name() + " VALUE", spec.help(),
                    spec.defaultValue() == null ? "" : " (default: " + spec.defaultValue() + ")"));
        }
        return s.toString();
    }
}
