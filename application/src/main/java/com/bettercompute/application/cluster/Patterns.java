package com.bettercompute.application.cluster;

import java.util.regex.Pattern;

/** The patterns of the clusters spec's input tables, as written there. */
public final class Patterns {
    public static final Pattern TENANT_ID = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");
    public static final Pattern PROJECT_ID = Pattern.compile("^prj_[0-9a-hjkmnp-tv-z]{26,52}$");
    public static final Pattern POOL_ID = Pattern.compile("^pool_[0-9a-hjkmnp-tv-z]{26,52}$");
    public static final Pattern NAME = Pattern.compile("^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$");
    public static final Pattern LOCATION = Pattern.compile("^[a-z][a-z0-9-]{1,38}[a-z0-9]$");
    public static final Pattern VERSION = Pattern.compile("^[0-9]{1,3}\\.[0-9]{1,3}(\\.[0-9]{1,3})?(-[a-z0-9.]{1,40})?$");
    public static final Pattern NETWORK_ID = Pattern.compile("^net_[0-9a-hjkmnp-tv-z]{26,52}$");
    public static final Pattern CLUSTER_ID = Pattern.compile("^kcl_[0-9a-hjkmnp-tv-z]{26,52}$");
    public static final Pattern NODE_POOL_ID = Pattern.compile("^knp_[0-9a-hjkmnp-tv-z]{26,52}$");
    public static final Pattern MACHINE_TYPE = Pattern.compile("^[a-z0-9][a-z0-9.-]{0,62}$");
    public static final Pattern DISK_TYPE = Pattern.compile("^[a-z][a-z0-9-]{1,40}$");
    public static final Pattern ACCELERATOR_TYPE = Pattern.compile("^[a-z0-9][a-z0-9-]{0,62}$");
    public static final Pattern IDEMPOTENCY_KEY = Pattern.compile("^[A-Za-z0-9._:-]{1,128}$");
    /** The spec leaves a zone's form open; a node pool zone is a location name. */
    public static final Pattern ZONE = LOCATION;
    /**
     * Labels and taint keys are Kubernetes qualified names (an optional DNS-subdomain prefix and a name of
     * 63 characters at most), since the provider refuses anything else on a node.
     */
    public static final Pattern QUALIFIED_NAME = Pattern.compile(
            "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");
    /** A Kubernetes label value: empty, or 63 characters at most of this form. */
    public static final Pattern LABEL_VALUE = Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$");

    private Patterns() {}
}
