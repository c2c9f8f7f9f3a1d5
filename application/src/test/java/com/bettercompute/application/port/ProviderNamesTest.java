package com.bettercompute.application.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.bettercompute.domain.ErrorCode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ProviderNamesTest {

    @Test
    void theProviderSideNameIsBcKAnd24CharactersOfTheId() {
        String name = ProviderNames.clusterName("kcl_01hzx8k3v4w5y6z7a8b9c0d1e2");
        assertThat(name).isEqualTo("bc-k-01hzx8k3v4w5y6z7a8b9c0d1").hasSize(29).matches("[a-z]([-a-z0-9]{0,38}[a-z0-9])?");
        assertThatThrownBy(() -> ProviderNames.clusterName("kcl_short")).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({
        "NOT_FOUND, NOT_FOUND, false",
        "ALREADY_EXISTS, CONFLICT, false",
        "FOREIGN, CONFLICT, false",
        "INVALID, INVALID_INPUT, false",
        "FAILED_PRECONDITION, INVALID_STATE, true",
        "QUOTA, QUOTA_EXCEEDED, true",
        "PERMISSION_DENIED, INTERNAL, false",
        "UNAVAILABLE, INTERNAL, true",
        "INTERNAL, INTERNAL, true"})
    void providerFailuresBecomeDomainErrors(ProviderException.Kind kind, ErrorCode code, boolean retryable) {
        ProviderException failure = new ProviderException(kind, "the provider's words");
        assertThat(failure.retryable()).isEqualTo(retryable);
        assertThat(failure.toDomainException().code()).isEqualTo(code);
        assertThat(failure.toDomainException().getMessage()).isEqualTo("the provider's words");
        assertThat(failure.toDomainException().details()).containsEntry("providerError", kind.name());
    }
}
