package dev.vtlab.app.system;

import dev.vtlab.app.support.PlatformReleasedApp;
import dev.vtlab.testsupport.ClientErrorsContract;

import org.springframework.boot.test.web.server.LocalServerPort;

/** The client errors the app answers exactly as its twin does (the contract), on the running app. */
@PlatformReleasedApp
class ClientErrorsTest implements ClientErrorsContract {

    @LocalServerPort
    int port;

    @Override
    public int port() {
        return port;
    }
}
