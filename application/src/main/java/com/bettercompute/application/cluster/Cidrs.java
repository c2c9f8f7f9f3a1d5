package com.bettercompute.application.cluster;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** IPv4 CIDR blocks as {@code authorizedNetworks} takes them: {@code a.b.c.d/n}. */
public final class Cidrs {
    private static final Pattern CIDR = Pattern.compile("^(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})/(\\d{1,2})$");

    private Cidrs() {}

    /** Why the text is not an IPv4 CIDR block, or null when it is one. */
    public static String problem(String text) {
        Matcher m = CIDR.matcher(text);
        if (!m.matches()) {
            return "must be an IPv4 CIDR block such as 203.0.113.0/24";
        }
        long address = 0;
        for (int i = 1; i <= 4; i++) {
            int octet = Integer.parseInt(m.group(i));
            if (octet > 255 || (m.group(i).length() > 1 && m.group(i).startsWith("0"))) {
                return "must be an IPv4 CIDR block: each part of the address is 0 to 255, without leading zeros";
            }
            address = (address << 8) | octet;
        }
        int prefix = Integer.parseInt(m.group(5));
        if (prefix > 32) {
            return "must be an IPv4 CIDR block: the prefix length is 0 to 32";
        }
        long hostMask = prefix == 32 ? 0 : (1L << (32 - prefix)) - 1;
        if ((address & hostMask) != 0) {
            return "must be an IPv4 CIDR block with no bits set after the prefix";
        }
        return null;
    }
}
