package com.bettercompute.bootstrap;

import java.util.Set;

/**
 * How the admission webhooks are served ({@code --admission-*} options; docs/decisions/admission.md).
 *
 * @param port          their HTTPS port; 0 takes any free port
 * @param url           the base URL the clusters' API servers reach them at ({@code https://host:port}); null:
 *                      {@code https://<the listen host>:<the port>}, right when the clusters run on this machine
 * @param platformUsers the user names the clusters' API servers give the platform's own credential (its writes
 *                      to its own Kueue objects are never StationOwned): the simulated API's
 *                      {@value #SIMULATED_PLATFORM_USER}; on GKE the provider account's service account email
 */
public record AdmissionConfig(int port, String url, Set<String> platformUsers) {
    /** The user the embedded simulator's API server names the platform's admin token. */
    public static final String SIMULATED_PLATFORM_USER = "better-compute-platform";

    public AdmissionConfig {
        platformUsers = Set.copyOf(platformUsers);
    }

    /** Any free port, the listen host, the simulator's platform user: what tests and load runs use. */
    public static AdmissionConfig defaults() {
        return new AdmissionConfig(0, null, Set.of(SIMULATED_PLATFORM_USER));
    }
}
