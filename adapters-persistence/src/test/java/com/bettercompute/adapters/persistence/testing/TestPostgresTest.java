package com.bettercompute.adapters.persistence.testing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestPostgresTest {
    @Test
    void the_url_with_credentials_carries_them_encoded() {
        assertThat(new TestPostgres.Db("d", "jdbc:postgresql://h:1/d", "postgres", "p&ss").urlWithCredentials())
                .isEqualTo("jdbc:postgresql://h:1/d?user=postgres&password=p%26ss");
        assertThat(new TestPostgres.Db("d", "jdbc:postgresql://h:1/d?ssl=false", "u", null).urlWithCredentials())
                .isEqualTo("jdbc:postgresql://h:1/d?ssl=false&user=u");
        assertThat(new TestPostgres.Db("d", "jdbc:postgresql://h:1/d?user=u", null, null).urlWithCredentials())
                .isEqualTo("jdbc:postgresql://h:1/d?user=u");
    }
}
