//===- ToolOptions.h - What the tools' --help lists -------------*- C++ -*-===//
//
// Debian's libLLVM registers, before main, the options of every LLVM back
// end and of Polly, IR2Vec and the remark machinery: hundreds of lines of a
// tool's --help that do nothing for a dsm tool. The tools hide them (they
// still parse: a script that passes one keeps working) and list their own
// and MLIR's.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_SUPPORT_TOOLOPTIONS_H
#define DSM_SUPPORT_TOOLOPTIONS_H

namespace dsm {

/// Hides from --help every command-line option registered so far except
/// LLVM's generic ones (--help, --version, ...). Call it first in main,
/// before the tool and MLIR register theirs.
void hideOtherProjectsOptions();

} // namespace dsm

#endif // DSM_SUPPORT_TOOLOPTIONS_H
