package dev.vtlab.app.support;

import dev.vtlab.testsupport.LabInfrastructure;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** Virtual threads with the downstream call made under a native frame: the pinning positive control. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true",
        "CONN_MODE=released",
        "PATH_MODE=pinned-control",
        "DB_POOL_MAX=2",
        "TOMCAT_MAX_THREADS=200",
        "DB_POOL_TIMEOUT_MS=5000",
        "DOWNSTREAM_CONNECT_TIMEOUT_MS=2000",
        "DOWNSTREAM_READ_TIMEOUT_MS=10000"
})
public @interface VirtualPinnedControlApp {
}
