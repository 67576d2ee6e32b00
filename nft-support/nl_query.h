/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Every request nft-cgroupd makes to nf_tables goes one of two ways, as in
 * nftables' src/mnl.c:
 * - a query (GET or DUMP): nfs_request() builds the header in the nfs
 *   buffer, the caller adds the payload, nfs_query() sends it and runs a
 *   callback on each answer until the kernel's DONE or ACK;
 * - a transaction: a struct nfs_batch, begin / messages / talk, with
 *   NLM_F_ACK on every message and each error mapped to its sequence number.
 * Both read the socket through one receive loop.
 */
#ifndef NFTCG_NLQUERY_H
#define NFTCG_NLQUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mnl_socket;
struct nlmsghdr;

/* The netlink socket to nf_tables, with the buffers of its requests. */
struct nfs {
	struct mnl_socket *nl;
	unsigned int portid;
	uint32_t seq;
	size_t ids_per_batch;	/* what fits in the send buffer we got */
	bool probed;		/* for NFT_MSG_DESTROYSETELEM */
	bool no_destroy;	/* kernel before 6.3: no NFT_MSG_DESTROYSETELEM */
	bool reset_probed;	/* for NFT_MSG_GETSETELEM_RESET */
	bool no_reset;		/* kernel before 6.5: no NFT_MSG_GETSETELEM_RESET */
	char *buf;		/* batch being built */
	size_t cap;
	char *rbuf;		/* receive buffer */
};

/* 0 or -errno. */
int nfs_open(struct nfs *n);
void nfs_close(struct nfs *n);
unsigned int nfs_portid(const struct nfs *n);

/* Sizes of element messages, to page ids by the send buffer we got. */
#define NFS_IDS_PER_MSG		1024	/* 20 bytes each: well below the 64 KiB of a nested attribute */
/*
 * The kernel applies a transaction without rescheduling (in 6.1,
 * nf_tables_newsetelem() loops over a message's elements): 20,000 ids
 * kept a CPU of the debug kernel (KASAN, TCG) over 21 s, an RCU stall.
 * A cap keeps each transaction short whatever the send buffer allows.
 */
#define NFS_IDS_PER_BATCH	4096	/* about 82 KB of messages */
/* an element: list item nest, key nest, 8-byte value, each with its header */
#define NFS_ID_BYTES		20
/* nlmsghdr, nfgenmsg, table and set names (NFT_NAME_MAXLEN), list nest */
#define NFS_MSG_OVERHEAD	(16 + 4 + 2 * (4 + 256) + 4 + 64)
/* the begin and end messages */
#define NFS_BATCH_FRAME		(2 * 32)

/* Called for each answer: 0 to go on, < 0 to fail the query (-EBADMSG). */
typedef int (*nfs_answer_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * A request header of @type for @family in the nfs buffer, NLM_F_ACK added
 * unless @flags has NLM_F_DUMP (a dump ends with DONE); NULL: ENOMEM.
 */
struct nlmsghdr *nfs_request(struct nfs *n, int type, int family,
			     uint16_t flags);
/*
 * Send the request @nlh (from nfs_request(), payload added) and run @cb on
 * each answer.  0, or -errno with the kernel's message, if any, in @kmsg.
 */
int nfs_query(struct nfs *n, struct nlmsghdr *nlh, nfs_answer_cb cb,
	      void *data, char *kmsg, size_t kmsglen);

/* One transaction being built in the nfs buffer. */
struct nfs_batch {
	struct nfs *n;
	size_t len;		/* bytes built so far */
	uint32_t begin_seq;	/* of the BATCH_BEGIN message */
	uint32_t first, last;	/* seqs of the messages between begin and end */
	/* the first error the kernel reported, by the seq of its message */
	int error;		/* positive errno, 0 for none */
	uint32_t error_seq;
	char kmsg[256];		/* the kernel's extended ack text */
	const char *stage;	/* where nfs_batch_talk() failed */
};

int nfs_batch_begin(struct nfs_batch *b, struct nfs *n);
/*
 * Room for one message of @type (NLM_F_ACK added); the caller builds its
 * payload, then nfs_batch_next() accounts for it.  NULL: ENOMEM.
 */
struct nlmsghdr *nfs_batch_msg(struct nfs_batch *b, int type, int family,
			       uint16_t flags);
void nfs_batch_next(struct nfs_batch *b, const struct nlmsghdr *nlh);
/* The seq the next message will get (to map errors to parts of a batch). */
uint32_t nfs_batch_next_seq(const struct nfs_batch *b);
/*
 * End the batch, send it in one sendmsg() and read every ACK.  0 when it
 * reached the kernel and b->error tells the outcome; -errno when it could
 * not be sent or answered.
 */
int nfs_batch_talk(struct nfs_batch *b);

/* "what: reason (kernel: text)" for a positive errno. */
void nfs_describe(char *err, size_t errlen, const char *what, int error,
		  const char *kmsg);

#endif
