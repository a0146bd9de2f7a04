/* Costs of the pieces of one recorded call, measured in isolation (used for the analysis in
 * BENCHMARKS.md, "Interposition hot path"): clock_gettime, rdtsc, an uncontended atomic add, and
 * writing 1 GiB of 104-byte records into a MAP_SHARED file mapping (fault on first write, after
 * MADV_POPULATE_WRITE, after fallocate) on tmpfs and on the given directory, vs anonymous memory
 * (4 KiB pages, and transparent huge pages).
 *   cc -O2 benches/recorder_parts.c -o target/recorder_parts && target/recorder_parts target */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <x86intrin.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
int main(int argc,char**argv){
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
