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
import java.nio.ByteBuffer;
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
                client.setTcpNoDelay(true); // each reply leaves at once, not after a delayed ack
                try {
                    SocketChannel unix = SocketChannel.open(socket);
                    daemon(() -> toSocket(client, unix));
                    daemon(() -> fromSocket(unix, client));
                } catch (IOException error) {
                    System.err.println("java-bot: cannot reach " + socket + ": " + error);
                    client.close();
                }
            }
        });
        return "127.0.0.1:" + listener.getLocalPort();
    }

    private interface Work {
        void run() throws IOException;
    }

    // A channel takes one reader and one writer at once; the streams of Channels would not (they
    // share one lock, so a blocked read would hold up every write).
    private static void toSocket(Socket client, SocketChannel unix) throws IOException {
        try (client; unix) {
            InputStream from = client.getInputStream();
            byte[] buffer = new byte[16384];
            for (int read; (read = from.read(buffer)) >= 0; ) {
                ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, read);
                while (bytes.hasRemaining()) {
                    unix.write(bytes);
                }
            }
        }
    }

    private static void fromSocket(SocketChannel unix, Socket client) throws IOException {
        try (client; unix) {
            OutputStream to = client.getOutputStream();
            ByteBuffer bytes = ByteBuffer.allocate(16384);
            while (unix.read(bytes) >= 0) {
                to.write(bytes.array(), 0, bytes.position());
                bytes.clear();
            }
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
