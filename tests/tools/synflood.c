// SPDX-License-Identifier: GPL-2.0
/*
 * synflood SRC DST PORT COUNT: send COUNT TCP SYNs (IPv4) from SRC to
 * DST:PORT over a raw socket, each from the next source port of
 * 1024..65535, as fast as one process can; print "sent COUNT" and the
 * time it took in ns ("ns N").  The SYN flood of tests/bench/syn_flood.sh:
 * over a veth pair, the receiver's INPUT runs in the sender's system call,
 * so the time is the cost of the receiving side too.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct syn {
	struct iphdr ip;
	struct tcphdr tcp;
};

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint16_t *w = p;

	for (; len > 1; len -= 2)
		sum += *w++;
	return sum;
}

/* The TCP checksum over the pseudo-header and the 20-byte header. */
static uint16_t tcp_csum(const struct syn *s)
{
	uint32_t sum = 0;

	sum = csum_add(sum, &s->ip.saddr, 8);
	sum += htons(IPPROTO_TCP) + htons(sizeof(s->tcp));
	return csum_fold(csum_add(sum, &s->tcp, sizeof(s->tcp)));
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct timespec t0, t1;
	struct syn s;
	long count, i;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: synflood SRC DST PORT COUNT\n");
		return 64;
	}
	memset(&s, 0, sizeof(s));
	if (inet_pton(AF_INET, argv[1], &s.ip.saddr) != 1 ||
	    inet_pton(AF_INET, argv[2], &s.ip.daddr) != 1) {
		fprintf(stderr, "synflood: bad address\n");
		return 64;
	}
	count = strtol(argv[4], NULL, 10);
	dst.sin_addr.s_addr = s.ip.daddr;
	s.ip.version = 4;
	s.ip.ihl = 5;
	s.ip.ttl = 64;
	s.ip.protocol = IPPROTO_TCP;
	s.ip.tot_len = htons(sizeof(s));
	s.tcp.dest = htons(atoi(argv[3]));
	s.tcp.doff = 5;
	s.tcp.syn = 1;
	s.tcp.window = htons(64240);

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("synflood: socket");
		return 65;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		s.tcp.source = htons(1024 + i % 64512);
		s.tcp.seq = htonl((uint32_t)i * 2654435761u);
		s.tcp.check = 0;
		s.tcp.check = tcp_csum(&s);
		if (sendto(fd, &s, sizeof(s), 0, (struct sockaddr *)&dst,
			   sizeof(dst)) != sizeof(s)) {
			perror("synflood: sendto");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("sent %ld\nns %lld\n", count,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
