package com.bettercompute.adapters.http.contract;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Strings that match a regular expression of the subset the API's document uses (anchors, literals, escapes,
 * {@code \\uXXXX}, character classes with ranges and negation, groups, alternation, the quantifiers {@code ? * +}
 * and {@code {n,m}}), as a jqwik arbitrary. No library at hand generates from a pattern; an unsupported
 * construct fails loudly rather than generating strings that do not match.
 */
public final class PatternStrings {
    /** What a negated class picks from: ASCII, some Latin and CJK letters, an emoji's surrogate pair is not one char. */
    private static final String ALPHABET;
    /** An unbounded repetition repeats at most this many times beyond its minimum. */
    private static final int UNBOUNDED = 8;

    static {
        StringBuilder b = new StringBuilder();
        for (char c = 0x20; c < 0x7f; c++) {
            b.append(c);
        }
        b.append("\t\n\u00e9\u00df\u4e2d\u0416\u00a0");
        ALPHABET = b.toString();
    }

    private final String pattern;
    private int at;

    private PatternStrings(String pattern) {
        this.pattern = pattern;
    }

    public static Arbitrary<String> of(String pattern) {
        PatternStrings p = new PatternStrings(pattern);
        Arbitrary<String> out = p.alternation();
        if (p.at != pattern.length()) {
            throw new IllegalArgumentException("cannot generate from " + pattern + " beyond position " + p.at);
        }
        return out;
    }

    private Arbitrary<String> alternation() {
        List<Arbitrary<String>> branches = new ArrayList<>();
        branches.add(sequence());
        while (at < pattern.length() && pattern.charAt(at) == '|') {
            at++;
            branches.add(sequence());
        }
        return branches.size() == 1 ? branches.get(0) : Arbitraries.oneOf(branches);
    }

    private Arbitrary<String> sequence() {
        List<Arbitrary<String>> parts = new ArrayList<>();
        while (at < pattern.length() && pattern.charAt(at) != '|' && pattern.charAt(at) != ')') {
            Arbitrary<String> atom = atom();
            parts.add(quantified(atom));
        }
        if (parts.isEmpty()) {
            return Arbitraries.just("");
        }
        return Combinators.combine(parts).as(list -> String.join("", list));
    }

    private Arbitrary<String> atom() {
        char c = pattern.charAt(at++);
        switch (c) {
            case '^', '$' -> {
                return Arbitraries.just("");
            }
            case '(' -> {
                if (pattern.startsWith("?:", at)) {
                    at += 2;
                }
                Arbitrary<String> inner = alternation();
                expect(')');
                return inner;
            }
            case '[' -> {
                return characterClass();
            }
            case '.' -> {
                return Arbitraries.of(chars(ALPHABET.replace("\n", "")));
            }
            case '\\' -> {
                return Arbitraries.just(String.valueOf(escaped()));
            }
            case '*', '+', '?', '{' -> throw new IllegalArgumentException("a quantifier without an atom in " + pattern);
            default -> {
                return Arbitraries.just(String.valueOf(c));
            }
        }
    }

    private Arbitrary<String> quantified(Arbitrary<String> atom) {
        if (at >= pattern.length()) {
            return atom;
        }
        int min;
        int max;
        char c = pattern.charAt(at);
        if (c == '?') {
            min = 0;
            max = 1;
        } else if (c == '*') {
            min = 0;
            max = UNBOUNDED;
        } else if (c == '+') {
            min = 1;
            max = 1 + UNBOUNDED;
        } else if (c == '{') {
            int close = pattern.indexOf('}', at);
            String[] bounds = pattern.substring(at + 1, close).split(",", -1);
            min = Integer.parseInt(bounds[0]);
            max = bounds.length == 1 ? min : bounds[1].isEmpty() ? min + UNBOUNDED : Integer.parseInt(bounds[1]);
            at = close;
        } else {
            return atom;
        }
        at++;
        return atom.list().ofMinSize(min).ofMaxSize(max).map(list -> String.join("", list));
    }

    private Arbitrary<String> characterClass() {
        boolean negated = at < pattern.length() && pattern.charAt(at) == '^';
        if (negated) {
            at++;
        }
        TreeSet<Character> set = new TreeSet<>();
        boolean first = true;
        while (pattern.charAt(at) != ']' || first) {
            char from = pattern.charAt(at) == '\\' ? escapedAt() : pattern.charAt(at++);
            if (pattern.charAt(at) == '-' && pattern.charAt(at + 1) != ']') {
                at++;
                char to = pattern.charAt(at) == '\\' ? escapedAt() : pattern.charAt(at++);
                for (char x = from; x <= to && x >= from; x++) {
                    set.add(x);
                    if (x == Character.MAX_VALUE) {
                        break;
                    }
                }
            } else {
                set.add(from);
            }
            first = false;
        }
        expect(']');
        List<String> choices = new ArrayList<>();
        if (negated) {
            for (char x : ALPHABET.toCharArray()) {
                if (!set.contains(x)) {
                    choices.add(String.valueOf(x));
                }
            }
        } else {
            set.forEach(x -> choices.add(String.valueOf(x)));
        }
        return Arbitraries.of(choices);
    }

    private char escapedAt() {
        at++;
        return escaped();
    }

    /** The character an escape stands for, {@code at} just past the backslash. */
    private char escaped() {
        char c = pattern.charAt(at++);
        if (c == 'u') {
            char x = (char) Integer.parseInt(pattern.substring(at, at + 4), 16);
            at += 4;
            return x;
        }
        if (Character.isLetterOrDigit(c)) {
            throw new IllegalArgumentException("the escape \\" + c + " in " + pattern + " is not supported");
        }
        return c;
    }

    private void expect(char c) {
        if (at >= pattern.length() || pattern.charAt(at) != c) {
            throw new IllegalArgumentException("expected " + c + " at " + at + " in " + pattern);
        }
        at++;
    }

    private static List<String> chars(String s) {
        return s.chars().mapToObj(c -> String.valueOf((char) c)).toList();
    }
}
