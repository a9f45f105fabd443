// A stand-in for a module --save-module made on another machine: a relocatable object whose
// .modinfo says what a kernel module's does (its name, stamped, and the kernel it is for), and
// whose .gnu.linkonce.this_module holds the name where struct module has it (after its state and
// list: 24 bytes on x86_64) in a zeroed struct of the kernel's size.
struct fake_this_module {
  char before_name[24];
  char name[56];
  char after_name[1200];
};

__attribute__((section(".modinfo"), used)) static const char modinfo[] =
    "license=GPL\0name=iotap_0123456789abcdef_01234567\0vermagic=5.10.0-99-amd64 SMP "
    "mod_unload modversions ";

__attribute__((section(".gnu.linkonce.this_module"), used)) struct fake_this_module
    fake_this_module = {.name = "iotap_0123456789abcdef_01234567"};
