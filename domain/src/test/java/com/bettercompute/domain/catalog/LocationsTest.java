package com.bettercompute.domain.catalog;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class LocationsTest {
    @ParameterizedTest(name = "{0}: zone {1}, region {2}")
    @CsvSource({
            "us-central1-a, true, us-central1",
            "europe-west4-b, true, europe-west4",
            "us-central1, false, us-central1",
            "a-b, false, a-b",
            "us-central1-ab, false, us-central1-ab"})
    void tells_zones_from_regions(String location, boolean zone, String region) {
        assertThat(Locations.isZone(location)).isEqualTo(zone);
        assertThat(Locations.regionOfZone(location)).isEqualTo(region);
    }
}
