[Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
__GI___clock_nanosleep (clock_id=clock_id@entry=0, flags=flags@entry=0, req=0x7ffdd01ba530, rem=0x7ffdd01ba570) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:71
71	../sysdeps/unix/sysv/linux/clock_nanosleep.c: No such file or directory.

Thread 1 (Thread 0x7f3d81d10740 (LWP 3925) "sleep"):
#0  __GI___clock_nanosleep (clock_id=clock_id@entry=0, flags=flags@entry=0, req=0x7ffdd01ba530, rem=0x7ffdd01ba570) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:71
#1  0x00007f3d81de6e53 in __GI___nanosleep (req=<optimized out>, rem=<optimized out>) at ../sysdeps/unix/sysv/linux/nanosleep.c:25
#2  0x0000556fbe1434af in ?? ()
#3  0x0000556fbe142f81 in ?? ()
#4  0x0000556fbe13f558 in ?? ()
#5  0x00007f3d81d3a24a in __libc_start_call_main (main=main@entry=0x556fbe13f370, argc=argc@entry=2, argv=argv@entry=0x7ffdd01ba728) at ../sysdeps/nptl/libc_start_call_main.h:58
#6  0x00007f3d81d3a305 in __libc_start_main_impl (main=0x556fbe13f370, argc=2, argv=0x7ffdd01ba728, init=<optimized out>, fini=<optimized out>, rtld_fini=<optimized out>, stack_end=0x7ffdd01ba718) at ../csu/libc-start.c:360
#7  0x0000556fbe13f621 in ?? ()
[Inferior 1 (process 3925) detached]
