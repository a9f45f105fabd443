// A stand-in for a module --save-module made on another machine: a relocatable object whose
// .modinfo says what a kernel module's does (its name, stamped, and the kernel it is for).
__attribute__((section(".modinfo"), used)) static const char modinfo[] =
    "license=GPL\0name=iotap_0123456789abcdef_01234567\0vermagic=5.10.0-99-amd64 SMP "
    "mod_unload modversions ";
