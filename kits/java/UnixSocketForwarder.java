// Debian's gRPC for Java reaches servers over TCP only (Netty's native transport, which speaks
// Unix sockets, is not packaged), but a bot in the server's jail has no network: its only way
// out is the server's Unix socket (KINGMAKER_SERVER=unix:/path). So the bot listens on a
// loopback port of its own (the jail has its own loopback) and forwards each connection to the
// socket, with the JDK's own Unix socket channels.
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;

final class UnixSocketForwarder {
    /** An address gRPC can dial for {@code server}: itself, or a loopback port forwarded to the
     * Unix socket it names. */
    static String reachable(String server) throws IOException {
        if (!server.startsWith("unix:")) {
            return server;
        }
        UnixDomainSocketAddress socket = UnixDomainSocketAddress.of(server.substring("unix:".length()));
        ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        daemon(() -> {
            while (true) {
                Socket client = listener.accept();
                SocketChannel unix = SocketChannel.open(socket);
                daemon(() -> copy(client.getInputStream(), Channels.newOutputStream(unix)));
                daemon(() -> copy(Channels.newInputStream(unix), client.getOutputStream()));
            }
        });
        return "127.0.0.1:" + listener.getLocalPort();
    }

    private interface Work {
        void run() throws IOException;
    }

    private static void copy(InputStream from, OutputStream to) throws IOException {
        try (from; to) {
            from.transferTo(to);
        }
    }

    private static void daemon(Work work) {
        Thread thread = new Thread(() -> {
            try {
                work.run();
            } catch (IOException closed) {
                // one side went away: the other is closed with it
            }
        });
        thread.setDaemon(true);
        thread.start();
    }

    private UnixSocketForwarder() {}
}
