package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.Cidrs;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.domain.market.Money;

import java.util.regex.Pattern;

/**
 * The values the API's requests carry, each once: its schema and the words a person reads when a value is
 * refused. A field of any route takes its type from here, so an id has one pattern everywhere.
 */
final class Wire {
    private Wire() {}

    private static final String BASE32 = "lower-case Crockford base32 (digits and the letters a to z but i, l, o and u)";

    static final Schema.Text TENANT_ID = Schema.Text.of(128, Patterns.TENANT_ID,
            "a tenant id: 1 to 128 letters, digits, dots, underscores, colons and hyphens");
    static final Schema.Text PROJECT_ID = Schema.Text.of(56, Patterns.PROJECT_ID, "prj_ followed by 26 to 52 characters of " + BASE32);
    static final Schema.Text POOL_ID = Schema.Text.of(57, Patterns.POOL_ID, "pool_ followed by 26 to 52 characters of " + BASE32);
    static final Schema.Text NETWORK_ID = Schema.Text.of(56, Patterns.NETWORK_ID, "net_ followed by 26 to 52 characters of " + BASE32);
    static final Schema.Text CLUSTER_ID = Schema.Text.of(56, Patterns.CLUSTER_ID, "kcl_ followed by 26 to 52 characters of " + BASE32);
    static final Schema.Text NODE_POOL_ID = Schema.Text.of(56, Patterns.NODE_POOL_ID, "knp_ followed by 26 to 52 characters of " + BASE32);
    static final Schema.Text NAME = Schema.Text.of(40, Patterns.NAME,
            "lower-case letters, digits and hyphens, starting with a letter, not ending with a hyphen, at most 40 characters");
    static final Schema.Text LOCATION = Schema.Text.of(40, Patterns.LOCATION,
            "a region or zone such as us-central1 or us-central1-a: lower-case letters, digits and hyphens, starting with a letter, "
                    + "ending with a letter or digit, 3 to 40 characters");
    static final Schema.Text ZONE = Schema.Text.of(40, Patterns.ZONE,
            "a zone such as us-central1-a: lower-case letters, digits and hyphens, starting with a letter, ending with a letter "
                    + "or digit, 3 to 40 characters");
    static final Schema.Text VERSION = Schema.Text.of(64, Patterns.VERSION,
            "a Kubernetes version such as 1.30 or 1.30.2-gke.1000");
    static final Schema.Text MACHINE_TYPE = Schema.Text.of(63, Patterns.MACHINE_TYPE,
            "a machine type such as a3-highgpu-8g: lower-case letters, digits, dots and hyphens, starting with a letter or digit, "
                    + "at most 63 characters");
    static final Schema.Text DISK_TYPE = Schema.Text.of(41, Patterns.DISK_TYPE,
            "a disk type such as pd-balanced: lower-case letters, digits and hyphens, starting with a letter, 2 to 41 characters");
    static final Schema.Text ACCELERATOR_TYPE = Schema.Text.of(63, Patterns.ACCELERATOR_TYPE,
            "an accelerator type such as nvidia-h100-80gb: lower-case letters, digits and hyphens, starting with a letter or digit, "
                    + "at most 63 characters");
    static final Schema.Text IDEMPOTENCY_KEY = Schema.Text.of(128, Patterns.IDEMPOTENCY_KEY,
            "1 to 128 letters, digits, dots, underscores, colons and hyphens");
    static final Schema.Text LABEL_KEY = Schema.Text.of(253, Patterns.QUALIFIED_NAME,
            "a Kubernetes label key: an optional DNS subdomain and a slash, then 1 to 63 letters, digits, hyphens, underscores and "
                    + "dots, starting and ending with a letter or digit");
    static final Schema.Text LABEL_VALUE = new Schema.Text(0, 63, Patterns.LABEL_VALUE,
            "a Kubernetes label value: empty, or at most 63 letters, digits, hyphens, underscores and dots, starting and ending "
                    + "with a letter or digit", null, null, null);
    /** A shared volume's name at the provider (a Filestore instance id), what a person types back to delete it. */
    static final Schema.Text STORAGE_NAME = Schema.Text.of(63, Pattern.compile("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$"),
            "a volume's storage name such as bc-v-0123456789abcdefghjkmnpq: lower-case letters, digits and hyphens, starting "
                    + "with a letter, not ending with a hyphen, at most 63 characters");
    static final Schema.Text DESCRIPTION = Schema.Text.any(256);
    /** An octet is 0 to 255 without leading zeros, the prefix 0 to 32; host bits after it are a rule beyond the pattern. */
    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    static final Schema.Text CIDR = Schema.Text.of(18, Pattern.compile("^(" + OCTET + "\\.){3}" + OCTET + "/(3[0-2]|[12]?[0-9])$"),
            "an IPv4 CIDR block such as 203.0.113.0/24: each part of the address 0 to 255 without leading zeros, a prefix "
                    + "length of 0 to 32")
            .also("no bits of the address are set after the prefix", Cidrs::problem);

    /** A market pool: {@code site/nodeClass}. */
    static final Schema.Text POOL = Schema.Text.of(127, Pattern.compile("^[a-z0-9][-a-z0-9.]{0,62}/[a-z0-9][-a-z0-9.]{0,62}$"),
            "a pool such as us-central1/h100-8x: a site and a node class, each 1 to 63 lower-case letters, digits, dots and "
                    + "hyphens starting with a letter or digit, joined by a slash");
    static final Schema.Text NODE = Schema.Text.of(253, Pattern.compile("^[a-z0-9][-a-z0-9.]{0,252}$"),
            "a node name: 1 to 253 lower-case letters, digits, dots and hyphens, starting with a letter or digit");
    static final Schema.Text NOTE = Schema.Text.any(256);
    /**
     * The largest integer the API takes or states: 2^53 - 1, the largest every JSON reader holds exactly (I-JSON,
     * RFC 7493; a JavaScript client reads a larger one rounded).
     */
    static final long MAX_SAFE_INTEGER = (1L << 53) - 1;
    /** USD as a decimal string, never a JSON number: plain digits, at most six decimals. */
    static final Schema.Text USD = Schema.Text.of(19, Pattern.compile("^[0-9]{1,12}(\\.[0-9]{1,6})?$"),
            "an amount of USD as a decimal string such as \"2.40\": at most 12 digits, a point and at most six decimals, no sign");
    /**
     * A price per GPU-hour: {@link #USD} up to the market's maximum, {@link Money#MAX_PRICE}, said by the pattern itself
     * (at most five digits before the point, or 100000 with no fraction; leading zeros up to USD's twelve digits) so
     * the document states the limit a client must keep.
     */
    static final Schema.Text PRICE = Schema.Text.of(19,
            Pattern.compile("^(0{0,7}[0-9]{1,5}(\\.[0-9]{1,6})?|0{0,6}100000(\\.0{1,6})?)$"),
            "a price in USD per GPU-hour as a decimal string such as \"2.40\": from 0 to " + Money.MAX_PRICE
                    + ", at most six decimals, no sign");
    /** A top-up: {@link #USD} above zero. */
    static final Schema.Text CREDIT = USD.also("more than 0",
            text -> Money.parse(text).micros() == 0 ? "must be more than 0" : null);
}
