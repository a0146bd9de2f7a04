/* Costs of the pieces of one recorded call, measured in isolation (used for the analysis in
 * BENCHMARKS.md, "Interposition hot path"): clock_gettime, rdtsc, an uncontended atomic add, and
 * writing 1 GiB of 104-byte records into a MAP_SHARED file mapping (fault on first write, after
 * MADV_POPULATE_WRITE, after fallocate) on tmpfs and on the given directory, vs anonymous memory
 * (4 KiB pages, and transparent huge pages).
 *   cc -O2 -pthread benches/recorder_parts.c -o target/recorder_parts
 *   target/recorder_parts target
 * `target/recorder_parts schemes DIR` compares whole schemes for the trace's pages instead
 * (see schemes_main below). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <x86intrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
int schemes_main(int argc,char**argv);
int main(int argc,char**argv){
  if(argc>1&&!strcmp(argv[1],"schemes")) return schemes_main(argc-1,argv+1);
  long n=20000000; volatile uint64_t sink=0; struct timespec ts;
  double t0=now(); for(long i=0;i<n;i++){clock_gettime(CLOCK_MONOTONIC,&ts);sink+=ts.tv_nsec;} printf("clock_gettime(MONOTONIC)        %.2f ns\n",(now()-t0)/n);
  t0=now(); for(long i=0;i<n;i++){clock_gettime(CLOCK_MONOTONIC_COARSE,&ts);sink+=ts.tv_nsec;} printf("clock_gettime(MONOTONIC_COARSE) %.2f ns\n",(now()-t0)/n);
  t0=now(); for(long i=0;i<n;i++){sink+=__rdtsc();} printf("rdtsc                           %.2f ns\n",(now()-t0)/n);
  unsigned aux; t0=now(); for(long i=0;i<n;i++){sink+=__rdtscp(&aux);} printf("rdtscp                          %.2f ns\n",(now()-t0)/n);
  static uint64_t ctr; t0=now(); for(long i=0;i<n;i++){sink+=__atomic_fetch_add(&ctr,104,__ATOMIC_RELAXED);} printf("lock xadd (fetch_add)           %.2f ns\n",(now()-t0)/n);
  t0=now(); for(long i=0;i<n;i++){uint64_t v=__atomic_load_n(&ctr,__ATOMIC_RELAXED); __atomic_store_n(&ctr,v+104,__ATOMIC_RELAXED); sink+=v;} printf("plain load+store (no lock)      %.2f ns\n",(now()-t0)/n);
  /* page-fault cost of a shared file mapping, per 104-byte record */
  const char *dirs[]={"/dev/shm", argc>1?argv[1]:"/tmp"};
  for(int d=0;d<2;d++) for(int mode=0;mode<3;mode++){
    char path[256]; snprintf(path,sizeof path,"%s/micro-%d.bin",dirs[d],getpid());
    int fd=open(path,O_RDWR|O_CREAT|O_TRUNC,0644); size_t len=1UL<<30; ftruncate(fd,len);
    char*p=mmap(0,len,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
    double t1=now();
    if(mode==1) madvise(p,len,MADV_POPULATE_WRITE);
    if(mode==2) fallocate(fd,0,0,len);
    double tpop=now()-t1;
    long recs=len/104; t0=now();
    for(long i=0;i<recs;i++){uint64_t*r=(uint64_t*)(p+i*104); for(int w=0;w<13;w++) r[w]=i+w;}
    double t=now()-t0;
    printf("%-9s %-22s write 104B records: %.2f ns/record (+ %.2f ns/record for the populate step)\n",dirs[d], mode==0?"fault on write":mode==1?"MADV_POPULATE_WRITE":"fallocate first", t/recs, tpop/recs);
    munmap(p,len); close(fd); unlink(path);
  }
  /* anonymous private memory for comparison */
  { size_t len=1UL<<30; char*p=mmap(0,len,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); long recs=len/104; t0=now();
    for(long i=0;i<recs;i++){uint64_t*r=(uint64_t*)(p+i*104); for(int w=0;w<13;w++) r[w]=i+w;}
    printf("anonymous private, fault on write: %.2f ns/record\n",(now()-t0)/recs); munmap(p,len);}
  { size_t len=1UL<<30; char*p=mmap(0,len,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); memset(p,1,len); long recs=len/104; t0=now();
    for(long i=0;i<recs;i++){uint64_t*r=(uint64_t*)(p+i*104); for(int w=0;w<13;w++) r[w]=i+w;}
    printf("already-faulted memory:            %.2f ns/record\n",(now()-t0)/recs); munmap(p,len);}
  /* anonymous memory in transparent huge pages, populated (one fault per 2 MiB instead of per
   * 4 KiB), twice: the first round may pay for compaction */
  for(int round=0;round<2;round++){ size_t len=1UL<<30; char*p=mmap(0,len,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
    madvise(p,len,MADV_HUGEPAGE); t0=now(); madvise(p,len,MADV_POPULATE_WRITE);
    printf("anonymous, huge pages, populate:   %.2f ns/record (round %d)\n",(now()-t0)/(len/104),round); munmap(p,len);}
  return (int)(sink&1);
}

/* ---- Whole schemes for the trace's pages: what a writer pays per record, and what the
 * machine pays in all (the writer process with its helper thread, plus a drainer process).
 *   target/recorder_parts schemes DIR     (env: RECORDS=10000000 ROUNDS=5 WRITERS="1 2"
 *                                          REC="72 64" RING_MIB=4 SCHEMES="mem grow ...")
 * Each of W writer processes (started together, one file each) writes RECORDS records of REC
 * bytes (REC/8 words, `prefetchw` 1 KiB ahead as the recorder does) with a locked add per
 * reservation and a release store publishing it. Schemes:
 *   mem        already-faulted anonymous memory, reused (the writing alone: the baseline)
 *   grow       today's recorder: file grown by posix_fallocate in 8..64 MiB steps, a helper
 *              thread populating 1..32 MiB ahead (MADV_POPULATE_WRITE, 1 MiB chunks under a
 *              lock), the writer populating 256 KiB itself when the helper is behind
 *   growhuge   grow, with MADV_HUGEPAGE on the mapping (huge pages where shmem/the fs allow)
 *   ring       a populated ring file of RING_MIB mapped twice back to back, drained by a
 *              separate process with pwrite into the trace file; the writer wakes it (futex)
 *              past half full and waits (sched_yield) when full
 *   ringcfr    the same, drained with copy_file_range from the ring file
 *   ringdirect the same, drained with O_DIRECT pwrite of whole 4 KiB blocks (no page cache
 *              for the trace: the disk reads the ring's pages; the last block padded)
 *   ringdrop   the same, the drainer reading the bytes and dropping them (what an online
 *              analysis that releases analyzed data would pay at least, minus the analysis)
 * WORK=K: K dependent multiply-adds (~1 ns each) before each record, standing for the MPI call
 * and the wrapper, so that a drainer or helper on the other core can keep pace.
 * Rounds interleave all schemes; medians over rounds. Prints one line per scheme, writers, and
 * record size. */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <errno.h>

typedef struct { double wall, w_user, w_sys, t_user, t_sys, d_user, d_sys, minflt, d_minflt, full, cold; } result_t;
static double tv(struct timeval t){return t.tv_sec*1e9+t.tv_usec*1e3;}
static long futex(_Atomic uint32_t *w,int op,uint32_t v,const struct timespec *t){return syscall(SYS_futex,w,op,v,t,0,0);}

/* CPU and faults of the measured part only (not the scheme's setup): mark(0) after setup,
 * mark(1) when the records are written and drained (helper joined, drainer reaped). */
static struct rusage mk_self,mk_thread;
static void mark(int end,result_t *r){
  struct rusage a,t; getrusage(RUSAGE_SELF,&a); getrusage(RUSAGE_THREAD,&t);
  if(!end){ mk_self=a; mk_thread=t; return; }
  r->w_user=tv(a.ru_utime)-tv(mk_self.ru_utime); r->w_sys=tv(a.ru_stime)-tv(mk_self.ru_stime);
  r->t_user=tv(t.ru_utime)-tv(mk_thread.ru_utime); r->t_sys=tv(t.ru_stime)-tv(mk_thread.ru_stime);
  r->minflt=a.ru_minflt-mk_self.ru_minflt;
}
static int work_iters;
static inline void put_record(char *r,long i,int words){
  uint64_t x=i; for(int k=0;k<work_iters;k++) x=x*6364136223846793005ULL+1; __asm__ volatile(""::"r"(x));
  __builtin_prefetch(r+1024,1);
  uint64_t *q=(uint64_t*)r; for(int w=1;w<words;w++) q[w]=i+w;
  __atomic_store_n(&q[0],(uint64_t)i<<8|words,__ATOMIC_RELEASE); /* the frame, stored last */
}

/* ---- grow: today's scheme */
#define PAGE 4096UL
#define WCHUNK (256UL<<10)
#define PCHUNK (1UL<<20)
typedef struct { int fd; char *base; _Atomic uint64_t file_len, populated, soft, reserved; _Atomic uint32_t wake; _Atomic int exiting; pthread_mutex_t plock, glock; } grow_t;
static int g_grow(grow_t *g,uint64_t needed){
  pthread_mutex_lock(&g->glock); uint64_t cur=g->file_len; int ok=1;
  if(needed>cur){ uint64_t step=cur/4; if(step<(8UL<<20)) step=8UL<<20; if(step>(64UL<<20)) step=64UL<<20;
    uint64_t nl=needed>cur+step?needed:cur+step; ok=posix_fallocate(g->fd,cur,nl-cur)==0; if(ok) g->file_len=nl; }
  pthread_mutex_unlock(&g->glock); return ok;
}
static uint64_t g_populate(grow_t *g,uint64_t from,uint64_t to,int wait){
  uint64_t done=from;
  while(done<to){
    if(wait) pthread_mutex_lock(&g->plock); else if(pthread_mutex_trylock(&g->plock)) return UINT64_MAX;
    uint64_t c=to-done<PCHUNK?to-done:PCHUNK;
    int bad=madvise(g->base+done,c,MADV_POPULATE_WRITE); pthread_mutex_unlock(&g->plock);
    if(bad) break; done+=c; uint64_t p=g->populated; while(p<done&&!atomic_compare_exchange_weak(&g->populated,&p,done));
  }
  return done;
}
static void *g_helper(void *arg){
  grow_t *g=arg; uint64_t ahead=1UL<<20;
  for(;;){ uint32_t seen=g->wake; if(g->exiting) return 0;
    uint64_t res=g->reserved; if(res+ahead/2>g->populated){ ahead*=2; if(ahead>(32UL<<20)) ahead=32UL<<20; }
    uint64_t target=(res+ahead+PAGE-1)/PAGE*PAGE;
    if(target<=g->file_len||g_grow(g,target)){ uint64_t from=g->populated; uint64_t d=g_populate(g,from,target,1);
      if(d==UINT64_MAX||d<from) d=from; uint64_t lim=d>ahead/2?d-ahead/2:0; if(lim>g->file_len) lim=g->file_len; g->soft=lim; }
    struct timespec t={0,200000000}; futex(&g->wake,FUTEX_WAIT_PRIVATE,seen,&t);
  }
}
static void g_cold(grow_t *g,uint64_t needed,double *cold){
  (*cold)++;
  if(needed>g->file_len) g_grow(g,needed);
  g->wake++; futex(&g->wake,FUTEX_WAKE_PRIVATE,1,0);
  uint64_t pop=g->populated,fl=g->file_len,lim;
  if(needed+WCHUNK/2>pop){
    uint64_t from=needed>WCHUNK?(needed-WCHUNK)/PAGE*PAGE:0; if(from<pop) from=pop;
    uint64_t to=(needed+WCHUNK+PAGE-1)/PAGE*PAGE; if(to>fl) to=fl;
    uint64_t d=g_populate(g,from,to,0);
    lim= d==UINT64_MAX? needed+WCHUNK/4 : d<to? fl : d-WCHUNK/2;
  } else lim=pop-WCHUNK/2;
  if(lim<needed) lim=needed; if(lim>fl) lim=fl; g->soft=lim;
}
static void run_grow(const char *dir,long n,int rec,int huge,result_t *r){
  grow_t g={0}; char path[512]; snprintf(path,sizeof path,"%s/scheme-grow-%d.bin",dir,getpid());
  g.fd=open(path,O_RDWR|O_CREAT|O_TRUNC,0644); unlink(path);
  size_t map=(size_t)n*rec+(256UL<<20); g.base=mmap(0,map,PROT_READ|PROT_WRITE,MAP_SHARED,g.fd,0);
  if(huge) madvise(g.base,map,MADV_HUGEPAGE);
  pthread_mutex_init(&g.plock,0); pthread_mutex_init(&g.glock,0);
  mark(0,r); pthread_t h; pthread_create(&h,0,g_helper,&g);
  double t0=now();
  for(long i=0;i<n;i++){
    uint64_t at=atomic_fetch_add(&g.reserved,rec);
    if(at+rec>g.soft) g_cold(&g,at+rec,&r->cold);
    put_record(g.base+at,i,rec/8);
  }
  r->wall=now()-t0;
  g.exiting=1; g.wake++; futex(&g.wake,FUTEX_WAKE_PRIVATE,1,0); pthread_join(h,0); mark(1,r);
  if(huge){ FILE *f=fopen("/proc/self/smaps_rollup","r"); char line[256];
    while(f&&fgets(line,sizeof line,f)) if(strstr(line,"PmdMapped")||strstr(line,"AnonHuge")) if(atol(strchr(line,':')+1)>0) fprintf(stderr,"  growhuge %s: %s",dir,line);
    if(f) fclose(f); }
  munmap(g.base,map); close(g.fd);
}

/* ---- ring: a populated ring drained by another process */
typedef struct { _Atomic uint64_t head; char p1[56]; _Atomic uint64_t tail; char p2[56]; _Atomic uint32_t sleeping, wake, done; } ringhdr_t;
static void drain(int how,int ringfd,char *ring,uint64_t R,ringhdr_t *h,int out){
  uint64_t t=0; volatile uint64_t sink=0;
  for(;;){
    uint64_t hd=atomic_load_explicit(&h->head,memory_order_acquire);
    if(hd==t){
      if(h->done&&h->head==t) break;
      uint32_t seen=h->wake; h->sleeping=1;
      if(h->head==t&&!h->done){ struct timespec ts={0,1000000}; futex(&h->wake,FUTEX_WAIT,seen,&ts); }
      h->sleeping=0; continue;
    }
    uint64_t len=hd-t, off=t%R;
    if(how==1&&len>R-off) len=R-off; /* the file itself is not doubled */
    if(len>(1UL<<20)) len=1UL<<20;
    if(how==3){ /* whole blocks only, until the writer is done; then the padded tail */
      uint64_t whole=len/PAGE*PAGE;
      if(!whole){ if(!h->done||h->head!=hd){ struct timespec ts={0,100000}; nanosleep(&ts,0); continue; }
        static char last[PAGE] __attribute__((aligned(4096))); memset(last,0,PAGE); memcpy(last,ring+off,len);
        if(pwrite(out,last,PAGE,t)!=PAGE){perror("pwrite O_DIRECT");exit(1);} ftruncate(out,t+len); }
      else { len=whole; if(pwrite(out,ring+off,len,t)!=(ssize_t)len){perror("pwrite O_DIRECT");exit(1);} }
    } else if(how==0){ if(pwrite(out,ring+off,len,t)!=(ssize_t)len){perror("pwrite");exit(1);} }
    else if(how==1){ loff_t in=PAGE+off,o=t; uint64_t left=len;
      while(left){ ssize_t k=copy_file_range(ringfd,&in,out,&o,left,0); if(k<=0){perror("copy_file_range");exit(1);} left-=k; } }
    else { for(uint64_t k=0;k<len;k+=64) sink+=*(volatile uint64_t*)(ring+off+k); }
    t+=len; atomic_store_explicit(&h->tail,t,memory_order_release);
  }
}
static void run_ring(const char *dir,long n,int rec,int how,uint64_t R,result_t *r){
  char path[512]; snprintf(path,sizeof path,"%s/scheme-ring-%d.bin",dir,getpid());
  int fd=open(path,O_RDWR|O_CREAT|O_TRUNC,0644); unlink(path);
  if(posix_fallocate(fd,0,PAGE+R)){perror("fallocate");exit(1);}
  ringhdr_t *h=mmap(0,PAGE,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
  char *ring=mmap(0,2*R,PROT_NONE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  if(mmap(ring,R,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_FIXED,fd,PAGE)==MAP_FAILED||mmap(ring+R,R,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_FIXED,fd,PAGE)==MAP_FAILED){perror("mmap");exit(1);}
  madvise(ring,2*R,MADV_POPULATE_WRITE);
  snprintf(path,sizeof path,"%s/scheme-trace-%d.bin",dir,getpid());
  int out=open(path,O_RDWR|O_CREAT|O_TRUNC|(how==3?O_DIRECT:0),0644); unlink(path);
  if(out<0){perror("open trace");exit(1);}
  mark(0,r); pid_t d=fork(); if(d==0){ drain(how,fd,ring,R,h,out); _exit(0); }
  uint64_t limit=R/2; double t0=now();
  for(long i=0;i<n;i++){
    uint64_t at=atomic_fetch_add_explicit(&h->head,0,memory_order_relaxed); /* the reservation's locked add */
    if(at+rec>limit){
      r->cold++;
      uint64_t tl=atomic_load_explicit(&h->tail,memory_order_acquire);
      if(at+rec<=tl+R/2) limit=tl+R/2;
      else { /* past half full: wake the drainer once, and come back only when full */
        if(h->sleeping){ h->wake++; futex(&h->wake,FUTEX_WAKE,1,0); }
        while(at+rec>tl+R){ r->full++; if(h->sleeping){ h->wake++; futex(&h->wake,FUTEX_WAKE,1,0);} sched_yield(); tl=atomic_load_explicit(&h->tail,memory_order_acquire); }
        limit=tl+R;
      }
    }
    put_record(ring+at%R,i,rec/8);
    atomic_store_explicit(&h->head,at+rec,memory_order_release);
  }
  r->wall=now()-t0;
  h->done=1; h->wake++; futex(&h->wake,FUTEX_WAKE,1,0);
  int st; struct rusage ru; wait4(d,&st,0,&ru); mark(1,r);
  r->d_user=tv(ru.ru_utime); r->d_sys=tv(ru.ru_stime); r->d_minflt=ru.ru_minflt;
  struct stat sb; fstat(out,&sb); if(sb.st_size!=(off_t)((uint64_t)n*rec)&&how!=2) fprintf(stderr,"ring: drained %ld of %ld bytes\n",(long)sb.st_size,n*(long)rec);
  munmap(ring,2*R); munmap(h,PAGE); close(fd); close(out);
}
static void run_mem(long n,int rec,result_t *r){
  size_t len=64UL<<20; char *p=mmap(0,len+4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); memset(p,1,len+4096);
  static _Atomic uint64_t res; mark(0,r); double t0=now();
  for(long i=0;i<n;i++){ uint64_t at=atomic_fetch_add(&res,rec)%len; put_record(p+at,i,rec/8); }
  r->wall=now()-t0; mark(1,r); munmap(p,len+4096);
}

static const char *SCHEME_NAMES[]={"mem","grow","growhuge","ring","ringcfr","ringdrop","ringdirect"};
static void run_scheme(int s,const char *dir,long n,int rec,uint64_t R,result_t *r){
  if(s==0) run_mem(n,rec,r); else if(s<=2) run_grow(dir,n,rec,s==2,r); else run_ring(dir,n,rec,s==6?3:s-3,R,r);
}
static int cmpd(const void *a,const void *b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double median(double *v,int k){qsort(v,k,sizeof *v,cmpd);return k%2?v[k/2]:(v[k/2-1]+v[k/2])/2;}
static int list(const char *env,const char *def,char out[][16],int max){
  const char *s=getenv(env); if(!s) s=def; int k=0; char buf[256]; snprintf(buf,sizeof buf,"%s",s);
  for(char *t=strtok(buf," ,");t&&k<max;t=strtok(0," ,")) snprintf(out[k++],16,"%s",t);
  return k;
}
int schemes_main(int argc,char**argv){
  const char *dir=argc>1?argv[1]:"/dev/shm";
  work_iters=getenv("WORK")?atoi(getenv("WORK")):0;
  long n=getenv("RECORDS")?atol(getenv("RECORDS")):10000000; int rounds=getenv("ROUNDS")?atoi(getenv("ROUNDS")):5;
  uint64_t R=(getenv("RING_MIB")?atol(getenv("RING_MIB")):4)<<20;
  char sch[8][16],wr[4][16],recs[4][16]; int ns=list("SCHEMES","mem grow growhuge ring ringcfr ringdrop",sch,8),nw=list("WRITERS","1 2",wr,4),nr=list("REC","72 64",recs,4);
  int sid[8]; for(int i=0;i<ns;i++){ sid[i]=-1; for(int j=0;j<7;j++) if(!strcmp(sch[i],SCHEME_NAMES[j])) sid[i]=j; if(sid[i]<0){fprintf(stderr,"unknown scheme %s\n",sch[i]);return 2;} }
  int cells=ns*nw*nr; result_t *all=mmap(0,sizeof(result_t)*cells*rounds*2,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  for(int round=0;round<rounds;round++) for(int c=0;c<cells;c++){
    int s=sid[c%ns],w=atoi(wr[(c/ns)%nw]),rec=atoi(recs[c/(ns*nw)]);
    pid_t kids[2];
    for(int k=0;k<w;k++){ kids[k]=fork(); if(!kids[k]){ result_t *r=&all[(round*cells+c)*2+k]; memset(r,0,sizeof *r); run_scheme(s,dir,n,rec,R,r); _exit(0);} }
    for(int k=0;k<w;k++) waitpid(kids[k],0,0);
  }
  double la[3]; getloadavg(la,3);
  printf("# %s, %ld records per writer, %d rounds, ring %lu MiB, work %d, load average now %.2f %.2f %.2f\n",dir,n,rounds,(unsigned long)(R>>20),work_iters,la[0],la[1],la[2]);
  printf("# per record, medians over rounds (slowest writer for wall): wall ns, writer process user+sys ns (its calling thread's sys ns), drainer user+sys ns, total CPU ns, minor faults per 1000 records, writer cold paths and full waits per 1000 records\n");
  printf("%-9s %3s %3s %8s %9s %9s %9s %9s %9s %8s %8s\n","scheme","W","rec","wall","w_cpu","t_sys","drain_cpu","total_cpu","minflt/k","cold/k","full/k");
  for(int c=0;c<cells;c++){
    int w=atoi(wr[(c/ns)%nw]),rec=atoi(recs[c/(ns*nw)]); double v[9][64];
    for(int round=0;round<rounds;round++){ double wall=0,wc=0,ts=0,dc=0,mf=0,cold=0,full=0;
      for(int k=0;k<w;k++){ result_t *r=&all[(round*cells+c)*2+k]; if(r->wall>wall) wall=r->wall;
        wc+=r->w_user+r->w_sys; ts+=r->t_sys; dc+=r->d_user+r->d_sys; mf+=r->minflt+r->d_minflt; cold+=r->cold; full+=r->full; }
      double per=(double)n*w; v[0][round]=wall/n; v[1][round]=wc/per; v[2][round]=ts/per; v[3][round]=dc/per; v[4][round]=(wc+dc)/per; v[5][round]=mf*1000/per; v[6][round]=cold*1000/per; v[7][round]=full*1000/per; }
    printf("%-9s %3d %3d",sch[c%ns],w,rec); for(int q=0;q<8;q++) printf(q<5?" %9.1f":" %8.2f",median(v[q],rounds)); printf("\n");
  }
  return 0;
}
