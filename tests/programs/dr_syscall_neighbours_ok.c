/*
 * System calls of the program on memory that shares pages with pending buffers, under
 * --check-buffers: the kernel's copies raise no fault, a protected page makes them fail with
 * EFAULT, so mpicheck must open those pages for the call (ABySS read() its input into a
 * stream buffer on the last page of its always-posted MPI_Irecv and aborted). read, readv,
 * pread, recv and recvmsg into neighbours of a pending receive buffer (on its first and last
 * pages) and of a pending send buffer; write, writev and send from neighbours, and write from
 * the pending send buffer itself (MPI allows loads from it). Every call must do all its work
 * and the messages must arrive intact; nothing is reported.
 */
/* mpicheck: ranks=2 check-buffers */
/* expect: none */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096
#define N 64

static int bad;

static void check(const char *what, long got, long want)
{
    if (got != want) {
        printf("%s: %ld instead of %ld\n", what, got, want);
        bad++;
    }
}

static void check_bytes(const char *what, const char *got, char want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want) {
            printf("%s: byte %d is %d instead of %d\n", what, i, got[i], want);
            bad++;
            return;
        }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    /* Page 0: `before` and the start of rx; page 1: rx only; page 2: the end of rx, `after`.
     * Pages 3-4: tx from the middle of page 3 to the middle of page 4, `beside` around it. */
    char *base = aligned_alloc(PAGE, 5 * PAGE);
    memset(base, 0, 5 * PAGE);
    char *before = base, *rx = base + 1024, *after = rx + 2 * PAGE + 64;
    int rx_len = 2 * PAGE + 64;
    char *tx = base + 3 * PAGE + 2048, *beside = base + 3 * PAGE;
    int tx_len = PAGE;
    memset(tx, 'a' + rank, tx_len);

    MPI_Request reqs[2];
    MPI_Irecv(rx, rx_len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(tx, tx_len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[1]);

    int p[2];
    if (pipe(p) != 0) return 2;
    char src[N];
    memset(src, 'x', N);
    /* read into both neighbours of the receive buffer and the one of the send buffer. */
    check("write to pipe", write(p[1], src, N), N);
    check("read into before", read(p[0], before, N), N);
    check_bytes("before", before, 'x', N);
    memset(src, 'y', N);
    check("write to pipe", write(p[1], src, N), N);
    check("read into after", read(p[0], after, N), N);
    check_bytes("after", after, 'y', N);
    memset(src, 'z', N);
    check("write to pipe", write(p[1], src, N), N);
    check("read into beside", read(p[0], beside, N), N);
    check_bytes("beside", beside, 'z', N);

    /* readv into two neighbours at once; writev and write from them. */
    memset(src, 'v', N);
    check("write to pipe", write(p[1], src, N), N);
    struct iovec two[2] = {{before + N, N / 2}, {after + N, N / 2}};
    check("readv", readv(p[0], two, 2), N);
    check_bytes("readv before", before + N, 'v', N / 2);
    check_bytes("readv after", after + N, 'v', N / 2);
    struct iovec out[2] = {{before, N}, {beside, N}};
    check("writev from neighbours", writev(p[1], out, 2), 2 * N);
    char back[2 * N];
    check("read back", read(p[0], back, 2 * N), 2 * N);
    check_bytes("writev before", back, 'x', N);
    check_bytes("writev beside", back + N, 'z', N);

    /* write from the pending send buffer itself: a load, which MPI allows. */
    check("write from tx", write(p[1], tx, 16), 16);
    check("read back tx", read(p[0], back, 16), 16);
    check_bytes("tx", back, (char)('a' + rank), 16);
    close(p[0]);
    close(p[1]);

    /* pread from a file. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/dr_syscall_ok_%d_%d", (int)getpid(), rank);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return 2;
    memset(src, 'f', N);
    check("pwrite", pwrite(fd, src, N, 0), N);
    check("pread into after", pread(fd, after + 2 * N, N, 0), N);
    check_bytes("pread", after + 2 * N, 'f', N);
    close(fd);
    unlink(path);

    /* recv and recvmsg on a socket pair into neighbours; send from one. */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 2;
    check("send from before", send(sv[0], before, N, 0), N);
    check("recv into after", recv(sv[1], after + 3 * N, N, 0), N);
    check_bytes("recv", after + 3 * N, 'x', N);
    memset(src, 'm', N);
    check("send", send(sv[0], src, N, 0), N);
    struct iovec one = {beside + N, N};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &one;
    msg.msg_iovlen = 1;
    check("recvmsg into beside", recvmsg(sv[1], &msg, 0), N);
    check_bytes("recvmsg", beside + N, 'm', N);
    close(sv[0]);
    close(sv[1]);

    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    check_bytes("message", rx, 'a' + peer, tx_len);
    free(base);
    MPI_Finalize();
    return bad != 0;
}
