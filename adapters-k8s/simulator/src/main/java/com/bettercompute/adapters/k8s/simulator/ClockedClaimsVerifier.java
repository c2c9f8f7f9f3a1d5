package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;

import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.Set;

/**
 * Nimbus's claims check (exact issuer, one accepted audience, required claims, {@code exp} and {@code nbf}
 * with a small skew) on the simulator's clock rather than the machine's, so a test moving the clock moves
 * expiry as it moves everything else in the simulated clusters.
 */
final class ClockedClaimsVerifier extends DefaultJWTClaimsVerifier<SecurityContext> {
    /** How far apart the issuer's clock and the cluster's may be. */
    static final Duration SKEW = Duration.ofSeconds(30);

    private final Clock clock;
    private final boolean expiresOnTheSecond;

    /**
     * @param expiresOnTheSecond no skew for {@code exp}: for tokens the cluster signed on its own clock, refused
     *                           the second they expire (the skew still covers {@code nbf})
     */
    ClockedClaimsVerifier(Clock clock, String issuer, Set<String> audiences, Set<String> required, boolean expiresOnTheSecond) {
        super(audiences, new JWTClaimsSet.Builder().issuer(issuer).build(), required, null);
        this.clock = clock;
        this.expiresOnTheSecond = expiresOnTheSecond;
        setMaxClockSkew((int) SKEW.toSeconds());
    }

    @Override
    public void verify(JWTClaimsSet claims, SecurityContext context) throws BadJWTException {
        super.verify(claims, context);
        if (expiresOnTheSecond && claims.getExpirationTime() != null && !clock.instant().isBefore(claims.getExpirationTime().toInstant())) {
            throw new BadJWTException("Expired JWT");
        }
    }

    @Override
    protected Date currentTime() {
        return Date.from(clock.instant());
    }
}
